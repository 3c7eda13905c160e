"""Seed Claude Code's own session store from a replayed prefix (issue 19), inside the sandbox.

usage: seed-claude-session.py TEMPLATE REPLAYED HOME
  TEMPLATE  the prefix as Claude Code 2.1.332 session messages, tool results left as slots
            (claude-session.ts, built on the host from the canonical history)
  REPLAYED  replay-driver.py's replayed.json: {"calls": [{id, exit_code, output, duration_ns}]}
Writes $HOME/.claude/projects/<cwd, each non-alphanumeric as "-">/<uuid>.jsonl: one event per message, chained by
uuid/parentUuid (user / assistant `type`, `message`, `sessionId`, `cwd`, `version`, `timestamp`),
each slot filled with the REPLAYED output of its call (an empty output as Claude Code 2.1.332 writes
it: "(Bash completed with no output)"; is_error when the exit code is not 0). Prints the session id.
Exit 2 with a message on stderr when the template and the replay disagree. Standard library only.
"""
import hashlib
import json
import os
import re
import sys
import uuid

from seed_common import SeedError, read_inputs, replayed_call, session_clock

EMPTY = "(Bash completed with no output)"


def main() -> int:
    inputs = read_inputs("usage: seed-claude-session.py TEMPLATE REPLAYED HOME")
    if inputs is None:
        return 2
    template, replayed, home = inputs
    cwd = os.getcwd()
    now, stamp, session_id = session_clock()
    events = []
    parent = None
    for k, message in enumerate(template["messages"]):
        content = message["content"]
        if isinstance(content, list):
            blocks = []
            for block in content:
                block = dict(block)
                if block["type"] == "tool_result":
                    try:
                        call = replayed_call(replayed, block["tool_use_id"])
                    except SeedError as error:
                        print(error, file=sys.stderr)
                        return 2
                    block["content"] = call["output"] if call["output"] != "" else EMPTY
                    block["is_error"] = call["exit_code"] != 0
                blocks.append(block)
            content = blocks
        body = {"role": message["role"], "content": content}
        if message["role"] == "assistant":
            digest = hashlib.sha256(("%s/%d" % (session_id, k)).encode("utf-8")).hexdigest()[:24]
            uses_tool = any(b.get("type") == "tool_use" for b in content)
            body = {"id": "msg_" + digest, "type": "message", "role": "assistant", "model": "fake-model", "content": content,
                    "stop_reason": "tool_use" if uses_tool else "end_turn", "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}
        event_id = str(uuid.uuid4())
        events.append({"parentUuid": parent, "isSidechain": False, "type": message["role"], "message": body, "uuid": event_id,
                       "timestamp": stamp, "userType": "external", "cwd": cwd, "sessionId": session_id, "version": template["cli_version"]})
        parent = event_id
    # Claude Code names a project directory by its cwd with every character outside [A-Za-z0-9]
    # turned into "-" (a run's trial directory holds ".", "_" and ":" as well as "/")
    directory = os.path.join(home, ".claude", "projects", re.sub(r"[^A-Za-z0-9]", "-", cwd))
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, session_id + ".jsonl"), "w", encoding="utf-8") as handle:
        for event in events:
            handle.write(json.dumps(event) + "\n")
    print(session_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
