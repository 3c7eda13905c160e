"""In-sandbox re-execution of a prefix's tool calls (issue 19, sandbench's replayer).

Runs inside the sandbox with /workspace as working directory: reads the calls file (argv[1], JSON
{"calls": [{"id", "command"}]}), prints REFERENCE_READY, then runs each shell call in order with
`bash -c` (sh when bash is absent), stdout and stderr merged as an agent's shell tool shows them,
and prints one `REPLAY_CALL {json}` line per call (exit code, output, in-sandbox monotonic duration)
before `REFERENCE_RESULT {json}`. It stops there: the next step would be a model request. Only the
standard library, so every backend's image (Debian python3) runs it unchanged.
"""
import base64
import json
import os
import subprocess
import sys
import time


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        calls = json.load(handle)["calls"]
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    print("REFERENCE_READY", flush=True)
    started = time.monotonic_ns()
    for index, call in enumerate(calls):
        t0 = time.monotonic_ns()
        done = subprocess.run([shell, "-c", call["command"]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False)
        t1 = time.monotonic_ns()
        line = {
            "index": index,
            "id": call["id"],
            "exit_code": done.returncode,
            # bytes exactly as produced; the host decodes and normalizes
            "output_b64": base64.b64encode(done.stdout).decode("ascii"),
            "duration_ns": t1 - t0,
        }
        print("REPLAY_CALL " + json.dumps(line), flush=True)
    print("REFERENCE_RESULT " + json.dumps({"calls": len(calls), "shell": shell, "total_ns": time.monotonic_ns() - started}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
