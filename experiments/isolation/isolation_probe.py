"""Workspace-boundary probes, run inside the sandbox with /workspace as working directory.

Prints one `ISOLATION_PROBE {json}` line per probe. A probe's `ok` is only the syscall's view;
the harness judges by host bytes (canary hashes, baseline digest, listener connections) and by
whether a read returned the host-only secret, never by these return codes.
"""
import json
import os
import socket

CONFIG = json.load(open("isolation_config.json"))
HOST = CONFIG["host_dir"]
BASELINE = CONFIG["baseline_dir"]
PAYLOAD = "sandbench-isolation-write\n"
# Deep enough to climb from any sandbox working directory to its root.
UP = "../" * 24


def emit(name, ok, data=None, error=None):
    print("ISOLATION_PROBE " + json.dumps({"probe": name, "ok": ok, "data": data, "error": error}), flush=True)


def read_probe(name, path):
    try:
        with open(path) as handle:
            emit(name, True, data=handle.read(200))
    except Exception as exc:  # every failure is an outcome, not a crash
        emit(name, False, error=type(exc).__name__)


def write_probe(name, path):
    try:
        with open(path, "w") as handle:
            handle.write(PAYLOAD)
        emit(name, True)
    except Exception as exc:
        emit(name, False, error=type(exc).__name__)


print("REFERENCE_READY", flush=True)

# Positives: must work inside the sandbox.
read_probe("workspace_read", "data.txt")
try:
    with open("written.txt", "w") as handle:
        handle.write(CONFIG["write_payload"])
    with open("written.txt") as handle:
        emit("workspace_write", handle.read() == CONFIG["write_payload"])
except Exception as exc:
    emit("workspace_write", False, error=type(exc).__name__)
try:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    left.sendall(b"ping")
    emit("socketpair", right.recv(4) == b"ping")
    left.close()
    right.close()
except Exception as exc:
    emit("socketpair", False, error=type(exc).__name__)

# Negatives: each targets its own host canary, so the harness can tell which one reached the host.
read_probe("abs_read", os.path.join(HOST, "abs-read.txt"))
write_probe("abs_write", os.path.join(HOST, "abs-write.txt"))
read_probe("symlink_read", os.path.join("link-out", "symlink-read.txt"))
write_probe("symlink_write", os.path.join("link-out", "symlink-write.txt"))
read_probe("proc_root_read", "/proc/self/root" + os.path.join(HOST, "proc-root-read.txt"))
write_probe("proc_root_write", "/proc/self/root" + os.path.join(HOST, "proc-root-write.txt"))
read_probe("traversal_read", UP + os.path.join(HOST, "traversal-read.txt").lstrip("/"))
write_probe("traversal_write", UP + os.path.join(HOST, "traversal-write.txt").lstrip("/"))
write_probe("alias_write", os.path.join(BASELINE, "alias-target.txt"))
try:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(3)
    client.connect(CONFIG["host_socket"])
    client.sendall(b"sandbench-isolation-connect\n")
    client.close()
    emit("host_socket", True)
except Exception as exc:
    emit("host_socket", False, error=type(exc).__name__)

print("REFERENCE_RESULT " + json.dumps({"mode": "isolation", "probes": 13}), flush=True)
