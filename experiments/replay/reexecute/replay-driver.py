"""In-sandbox re-execution of a prefix's tool calls (issue 19, sandbench's replayer).

Runs inside the sandbox with /workspace as working directory: reads the calls file (argv[1], JSON
{"calls": [{"id", "command"}]}), prints REFERENCE_READY, then runs each shell call in order with
`bash -c` (sh when bash is absent), stdout and stderr merged as an agent's shell tool shows them,
and prints one `REPLAY_CALL {json}` line per call (exit code, output, in-sandbox monotonic duration)
before `REFERENCE_RESULT {json}`. It stops there: the next step would be a model request. Only the
standard library, so every backend's image (Debian python3) runs it unchanged.

With `--meta DIR` (mode continue) it also writes what a continuing agent needs into DIR: the
prompt (`prompt.txt`) and the prefix as chat messages carrying the REPLAYED observations
(`history.json`, the built-in agent's --resume-from; tool content in its `<returncode>` form), and
the replayed calls themselves (`replayed.json`: id, exit code, output, duration), from which a CLI's
own session file is seeded (cli-resume/).
"""
import base64
import json
import os
import subprocess
import sys
import time


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        document = json.load(handle)
    calls = document["calls"]
    meta = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--meta" else None
    history = []
    replayed = []
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
        call_id = call["id"]
        replayed.append({"id": call_id, "exit_code": done.returncode, "output": done.stdout.decode("utf-8", "replace"), "duration_ns": t1 - t0})
        history.append({"role": "assistant", "content": None, "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": call["command"]})}}]})
        history.append({"role": "tool", "tool_call_id": call_id, "content": "<returncode>%d</returncode>\n%s" % (done.returncode, done.stdout.decode("utf-8", "replace"))})
    print("REFERENCE_RESULT " + json.dumps({"calls": len(calls), "shell": shell, "total_ns": time.monotonic_ns() - started}), flush=True)
    if meta is not None:
        os.makedirs(meta, exist_ok=True)
        with open(os.path.join(meta, "prompt.txt"), "w", encoding="utf-8") as handle:
            handle.write(document.get("prompt", ""))
        with open(os.path.join(meta, "history.json"), "w", encoding="utf-8") as handle:
            json.dump({"messages": history}, handle)
        with open(os.path.join(meta, "replayed.json"), "w", encoding="utf-8") as handle:
            json.dump({"calls": replayed}, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
