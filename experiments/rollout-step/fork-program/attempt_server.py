"""The rollout-step kind's fork attempt program: the StateProgram a checkpoint mechanism runs in a
forked sandbox (experiments/rollout-step/fork-group.ts). One JSON request per stdin line, one
`ATTEMPT {json}` answer line on stdout (the agent's own output is captured, never on stdout).

  prepare  in the parent, before the checkpoint: records the workspace's baseline manifest
           (path -> sha256, .git/ excluded) in .sandbench-fork/, then runs the task's preparation
           argv, if any; the manifest is what every child's candidate is diffed against
  sync     flush to disk (the mechanism's quiesce)
  run      in a child: runs argv with env (added to the sandbox's) in the workspace, then answers
           with its exit code and the candidate: changed paths, deleted paths, and a base64 tar of
           the changed files (the same diff against the task baseline an executor's collect makes)

Transports: stdio (the default: requests on stdin, answers on stdout); `tcp PORT` (a container
parent's and its children's server on 127.0.0.1:PORT in the sandbox's own network namespace, one
client at a time, no greeting: a connection closed by the checkpoint's quiesce leaves the state
untouched). The host reaches `tcp` through executors/checkpoint/line_relay.py, which greets with
this program's `ATTEMPT` ready line. `--line-max N` (a VM serial console, which splits long lines):
an answer longer than N goes out as `ATTEMPT+ <part>|` continuation lines, then `ATTEMPT <last part>`
(executors/checkpoint/line-channel.ts joins them).

Python 3 standard library only (the task image has python3, nothing else).
"""
import base64
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import time

WORKSPACE = "/workspace"
PREFIX = "ATTEMPT "
CONTINUED = "ATTEMPT+ "
LINE_MAX = None
META = ".sandbench-fork"
MANIFEST = os.path.join(META, "baseline.json")
SKIPPED = (".git", META)


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest():
    entries = {}
    for directory, dirs, files in os.walk(WORKSPACE):
        if directory == WORKSPACE:
            dirs[:] = [d for d in dirs if d not in SKIPPED]
        for name in files:
            path = os.path.join(directory, name)
            if os.path.isfile(path) and not os.path.islink(path):
                entries[os.path.relpath(path, WORKSPACE)] = file_sha256(path)
    return entries


def tail(data, lines=4):
    return [line[:300] for line in data.decode("utf-8", "replace").splitlines() if line.strip()][-lines:]


def prepare(request):
    os.makedirs(os.path.join(WORKSPACE, META), exist_ok=True)
    with open(os.path.join(WORKSPACE, MANIFEST), "w") as handle:
        json.dump(manifest(), handle)
    argv = request.get("argv") or []
    code = subprocess.run(argv, cwd=WORKSPACE, stdin=subprocess.DEVNULL, capture_output=True).returncode if argv else 0
    os.sync()
    return {"prepared": True, "exit_code": code}


def run(request):
    with open(os.path.join(WORKSPACE, MANIFEST)) as handle:
        baseline = json.load(handle)
    env = {**os.environ, **request.get("env", {})}
    started = time.monotonic()
    timed_out = False
    try:
        done = subprocess.run(request["argv"], cwd=WORKSPACE, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=float(request["timeout_s"]))
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        timed_out, code, stdout, stderr = True, None, expired.stdout or b"", expired.stderr or b""
    ms = (time.monotonic() - started) * 1000
    now = manifest()
    changed = sorted(path for path, sha in now.items() if baseline.get(path) != sha)
    deleted = sorted(path for path in baseline if path not in now)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for path in changed:
            archive.add(os.path.join(WORKSPACE, path), arcname=path, recursive=False)
    return {
        "exit_code": code, "timed_out": timed_out, "ms": round(ms, 3), "changed": changed, "deleted": deleted,
        "tar": base64.b64encode(buffer.getvalue()).decode(), "stdout_tail": tail(stdout), "stderr_tail": tail(stderr),
    }


def handle(request):
    op = request.get("op")
    if op == "prepare":
        return prepare(request)
    if op == "sync":
        os.sync()
        return {"synced": True}
    if op == "run":
        return run(request)
    raise ValueError(f"unknown op {op!r}")


def answer(line):
    try:
        reply = {"ok": True, **handle(json.loads(line))}
    except Exception as error:  # answered, never fatal: the child must report
        reply = {"ok": False, "error": str(error)[:300]}
    return framed(json.dumps(reply, separators=(",", ":")))


def framed(text):
    if LINE_MAX is None or len(PREFIX) + len(text) <= LINE_MAX:
        return PREFIX + text + "\n"
    size = LINE_MAX - len(CONTINUED) - 1
    parts = [text[at:at + size] for at in range(0, len(text), size)]
    return "".join(CONTINUED + part + "|\n" for part in parts[:-1]) + PREFIX + parts[-1] + "\n"


def serve(lines, out):
    for line in lines:
        if line.strip():
            out.write(answer(line))
            out.flush()


def serve_tcp(port):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(8)
    while True:
        connection, _ = server.accept()
        with connection, connection.makefile("rw") as stream:
            serve(stream, stream)


def main(argv):
    global WORKSPACE, LINE_MAX
    if "--workspace" in argv:
        at = argv.index("--workspace")
        WORKSPACE = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    if "--line-max" in argv:
        at = argv.index("--line-max")
        LINE_MAX = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if argv[:1] == ["tcp"]:
        serve_tcp(int(argv[1]))
    else:
        sys.stdout.write(PREFIX + json.dumps({"ok": True, "ready": True}) + "\n")
        sys.stdout.flush()
        serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
