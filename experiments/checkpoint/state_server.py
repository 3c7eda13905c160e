"""The checkpoint kind's mid-rollout process: in-memory state (a structure built from a random token
and a counter) plus the tools to edit the workspace, answering one JSON request per line.

  state_server.py stdio [--workspace DIR]   requests on stdin, answers on stdout (staged, host, VMs, pvisor)
  state_server.py tcp PORT     listens on 127.0.0.1:PORT inside the sandbox's network namespace (containers)
  (the host reaches `tcp` through executors/checkpoint/line_relay.py, run in the container's netns)

Answers are one line `STATE {json}` below 200 characters: the VM serial console splits longer lines.
Python 3 standard library only (the task image has python3, nothing else).
"""
import hashlib
import json
import os
import random
import socket
import sys
import time

WORKSPACE = os.environ.get("SANDBENCH_WORKSPACE", "/workspace")
PREFIX = "STATE "


class State:
    def __init__(self):
        self.token = os.urandom(8).hex()
        # A structure worth checkpointing: 20,000 entries derived from the token.
        self.structure = {f"k{i}": hashlib.sha256(f"{self.token}:{i}".encode()).hexdigest()[:16] for i in range(20000)}
        self.counter = 0
        self.started = time.time()

    def structure_digest(self):
        return hashlib.sha256(json.dumps(self.structure, sort_keys=True).encode()).hexdigest()[:16]


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_digest(root, named=()):
    """sha256 over sorted (relative path, content sha256) of every file found by walking `root` plus
    every `named` path (read by name, "-" when absent): some sandboxes' views list no lower-layer
    entries (pVisor's), so the paths that matter are always read explicitly. .sandbench/ is excluded."""
    entries = {}
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not (directory == root and d in (".sandbench", "lost+found")))
        for name in files:
            path = os.path.join(directory, name)
            entries[os.path.relpath(path, root)] = file_sha256(path)
    walked = len(entries)
    for relative in named:
        path = os.path.join(root, relative)
        entries[relative] = file_sha256(path) if os.path.isfile(path) else "-"
    text = "".join(f"{path}\0{entries[path]}\n" for path in sorted(entries))
    return hashlib.sha256(text.encode()).hexdigest(), len(entries), walked


def write_file(relative, data):
    path = os.path.join(WORKSPACE, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def handle(state, request):
    op = request.get("op")
    if op == "get":
        return {"counter": state.counter, "token": state.token, "structure": state.structure_digest(), "pid": os.getpid()}
    if op == "inc":
        state.counter += int(request.get("by", 1))
        return {"counter": state.counter}
    if op == "write":
        write_file(request["path"], request["data"].encode())
        return {"written": request["path"]}
    if op == "delete":
        os.remove(os.path.join(WORKSPACE, request["path"]))
        return {"deleted": request["path"]}
    if op == "bigfile":
        # Deterministic bytes from the seed: the parent's large file (e.g. a 32 MiB build artefact).
        write_file(request["path"], random.Random(request["seed"]).randbytes(int(request["mib"]) << 20))
        return {"written": request["path"]}
    if op == "sha":
        path = os.path.join(WORKSPACE, request["path"])
        if not os.path.exists(path):
            return {"sha": None}
        with open(path, "rb") as handle:
            return {"sha": hashlib.sha256(handle.read()).hexdigest()[:16]}
    if op == "exists":
        return {"exists": "".join("1" if os.path.exists(os.path.join(WORKSPACE, p)) else "0" for p in request["paths"])}
    if op == "files":
        digest, count, walked = tree_digest(WORKSPACE, request.get("paths", ()))
        return {"tree": digest, "files": count, "walked": walked}
    if op == "sync":
        os.sync()
        return {"synced": True}
    raise ValueError(f"unknown op {op!r}")


def answer(state, line):
    try:
        reply = {"ok": True, **handle(state, json.loads(line))}
    except Exception as error:  # a bad request is answered, never fatal: the state must survive
        reply = {"ok": False, "error": str(error)[:120]}
    return PREFIX + json.dumps(reply, separators=(",", ":")) + "\n"


def serve_stdio(state):
    sys.stdout.write(PREFIX + json.dumps({"ok": True, "ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(answer(state, line))
            sys.stdout.flush()


def serve_tcp(state, port):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(8)
    while True:
        # One client at a time (the host's relay); a closed connection leaves the state untouched.
        connection, _ = server.accept()
        with connection, connection.makefile("rw") as stream:
            for line in stream:
                if line.strip():
                    stream.write(answer(state, line))
                    stream.flush()


def main(argv):
    global WORKSPACE
    # --workspace DIR beats the environment: some sandboxes (pVisor) do not pass the environment on.
    if "--workspace" in argv:
        at = argv.index("--workspace")
        WORKSPACE = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    state = State()
    if len(argv) >= 2 and argv[0] == "tcp":
        serve_tcp(state, int(argv[1]))
    else:
        serve_stdio(state)


if __name__ == "__main__":
    main(sys.argv[1:])
