"""The process sandbench keeps running inside one sandbox for a Harbor trial (stdlib only).

The bridge (integrations/harbor/bridge.ts) launches it once per trial through a sandbench backend
and writes one JSON request per line to its stdin; it answers each with one stdout line
``SBH {json}``. Harbor's in-environment paths (/app or the task's workdir, /tests, /logs,
/solution) are mapped onto directories of the sandbox's workspace (its cwd), because a backend's
root may be read-only (staged) or the host's own (host): commands, working directories, transfer
paths and the text files Harbor uploads are rewritten with the rule of
experiments/rollout/tasks/harbor-paths.ts (a prefix matches as a whole leading path segment).
"""
import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

WORKSPACE = os.getcwd()
MAPPINGS = sorted(((prefix, os.path.join(WORKSPACE, rel)) for prefix, rel in json.loads(os.environ["SBH_MAP"])), key=lambda m: -len(m[0]))
TABLE = dict(MAPPINGS)
PATTERN = re.compile(r"(?<![\w./-])(" + "|".join(re.escape(prefix) for prefix, _ in MAPPINGS) + r")(?![\w.-])")


def rewrite(text):
    return PATTERN.sub(lambda match: TABLE[match.group(1)], text)


def rewrite_tree(root):
    paths = [root] if os.path.isfile(root) else [os.path.join(d, f) for d, _, files in os.walk(root) for f in files]
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        if b"\0" in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text)
        if new != text:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(new)


def do_exec(req):
    env = dict(os.environ)
    env.pop("SBH_MAP", None)
    env.update({k: rewrite(v) for k, v in (req.get("env") or {}).items()})
    cwd = rewrite(req["cwd"]) if req.get("cwd") else WORKSPACE  # the task's workdir is the workspace
    os.makedirs(cwd, exist_ok=True)
    try:
        done = subprocess.run(["bash", "-c", rewrite(req["command"])], cwd=cwd, env=env, capture_output=True, timeout=req.get("timeout"))
        return {"rc": done.returncode, "stdout": base64.b64encode(done.stdout).decode(), "stderr": base64.b64encode(done.stderr).decode()}
    except subprocess.TimeoutExpired as expired:
        return {"rc": 124, "timed_out": True, "stdout": base64.b64encode(expired.stdout or b"").decode(), "stderr": base64.b64encode(expired.stderr or b"").decode()}


def extract(archive, target):
    """Extract refusing absolute and escaping members (the task image's Python 3.11.2 has no extraction filters)."""
    for member in archive.getmembers():
        path = os.path.normpath(member.name)
        if path.startswith(("/", "..")) or member.issym() or member.islnk() or member.isdev():
            raise ValueError(f"refusing archive member {member.name!r}")
    archive.extractall(target)


def do_put(req):
    target = rewrite(req["path"])
    data = base64.b64decode(req["data"])
    if req.get("dir"):
        os.makedirs(target, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            extract(archive, target)
    else:
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(data)
    # Scripts Harbor uploads (tests/, solution/) name Harbor's paths: map them like commands.
    rewrite_tree(target)
    return {"path": target}


def do_get(req):
    source = rewrite(req["path"])
    if os.path.isdir(source):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            archive.add(source, arcname=".")
        return {"dir": True, "data": base64.b64encode(buffer.getvalue()).decode()}
    with open(source, "rb") as handle:
        return {"dir": False, "data": base64.b64encode(handle.read()).decode()}


OPS = {"exec": do_exec, "put": do_put, "get": do_get}


def private_tmux():
    """A tmux server of this trial's own (Harbor's terminus-2 starts one through exec).

    tmux daemonizes out of the launched process tree, and its default socket (/tmp/tmux-UID) is the
    host's own on the host backend, so every exec gets a private TMUX_TMPDIR, and stop_tmux ends
    that server when the bridge closes our input.
    """
    os.environ["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="sbh-tmux-")


def stop_tmux():
    directory = os.environ["TMUX_TMPDIR"]
    if shutil.which("tmux") and os.listdir(directory):
        subprocess.run(["tmux", "kill-server"], capture_output=True, timeout=10)
    shutil.rmtree(directory, ignore_errors=True)


def main():
    for _, path in MAPPINGS:
        os.makedirs(path, exist_ok=True)
    # Harbor's output directories exist from the start in its own providers (harbor/models/trial/paths.py).
    for sub in ("agent", "verifier", "artifacts"):
        os.makedirs(os.path.join(TABLE["/logs"], sub), exist_ok=True)
    private_tmux()
    print("SBH " + json.dumps({"ready": True, "workspace": WORKSPACE, "pid": os.getpid()}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        started = time.monotonic()
        try:
            reply = OPS[req["op"]](req)
        except Exception as error:  # a failed transfer is the caller's error, not the server's end
            reply = {"error": f"{type(error).__name__}: {error}"}
        reply.update({"id": req["id"], "in_sandbox_ms": (time.monotonic() - started) * 1000})
        print("SBH " + json.dumps(reply), flush=True)
    stop_tmux()


if __name__ == "__main__":
    main()
