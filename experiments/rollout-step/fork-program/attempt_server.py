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

Python 3 standard library only (the task image has python3, nothing else).
"""
import base64
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time

WORKSPACE = "/workspace"
PREFIX = "ATTEMPT "
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


def main(argv):
    global WORKSPACE
    if "--workspace" in argv:
        WORKSPACE = argv[argv.index("--workspace") + 1]
    sys.stdout.write(PREFIX + json.dumps({"ok": True, "ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = {"ok": True, **handle(json.loads(line))}
        except Exception as error:  # answered, never fatal: the child must report
            reply = {"ok": False, "error": str(error)[:300]}
        sys.stdout.write(PREFIX + json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
