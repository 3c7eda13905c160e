"""Seed codex's own session store from a replayed prefix (issue 19), inside the sandbox.

usage: seed-codex-session.py TEMPLATE REPLAYED CODEX_HOME
  TEMPLATE  the prefix in codex 0.169.0's rollout shape, tool results left as slots
            (codex-session.ts, built on the host from the canonical history)
  REPLAYED  replay-driver.py's replayed.json: {"calls": [{id, exit_code, output, duration_ns}]}
Writes $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl: one
`session_meta` line (id, timestamp, cwd = this process's cwd, originator, cli_version, source,
model_provider), then one `response_item` line per template item, each slot filled with the
REPLAYED output of its call in the unified-exec envelope codex 0.169.0 itself writes (Chunk ID,
Wall time, Process exited with code N, Original token count, Output:). Prints the session id.
Exit 2 with a message on stderr when the template and the replay disagree (a slot with no
replayed call): the caller categorizes it as a setup failure. Standard library only.
"""
import hashlib
import json
import math
import os
import sys
import time

from seed_common import SeedError, read_inputs, replayed_call, session_clock


def envelope(call_id: str, exit_code: int, output: str, duration_ns: int) -> str:
    # Chunk ID: 6 hex digits (codex draws them at random; derived from the call id here, so a
    # seeded file is reproducible). Token count: ceil(bytes / 4), an approximation of codex's own.
    chunk = hashlib.sha256(call_id.encode("utf-8")).hexdigest()[:6]
    tokens = math.ceil(len(output.encode("utf-8")) / 4)
    return "Chunk ID: %s\nWall time: %.4f seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s" % (chunk, duration_ns / 1e9, exit_code, tokens, output)


def main() -> int:
    inputs = read_inputs("usage: seed-codex-session.py TEMPLATE REPLAYED CODEX_HOME")
    if inputs is None:
        return 2
    template, replayed, home = inputs
    now, stamp, session_id = session_clock()
    lines = [{"timestamp": stamp, "type": "session_meta", "payload": {
        "id": session_id,
        "timestamp": stamp,
        "cwd": os.getcwd(),
        "originator": "codex_exec",
        "cli_version": template["cli_version"],
        "source": "exec",
        "model_provider": "sandbench",
    }}]
    for item in template["items"]:
        payload = dict(item)
        if payload["type"] == "function_call_output":
            try:
                call = replayed_call(replayed, payload["call_id"])
            except SeedError as error:
                print(error, file=sys.stderr)
                return 2
            payload["output"] = envelope(call["id"], call["exit_code"], call["output"], call["duration_ns"])
        lines.append({"timestamp": stamp, "type": "response_item", "payload": payload})
    day = time.strftime("%Y/%m/%d", time.gmtime(now))
    directory = os.path.join(home, "sessions", day)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "rollout-%s-%s.jsonl" % (time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(now)), session_id))
    with open(path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
    print(session_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
