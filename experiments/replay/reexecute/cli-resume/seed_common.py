"""What both session seeders (seed-codex-session.py, seed-claude-session.py) do the same way, inside
the sandbox: read TEMPLATE, REPLAYED and the home directory from argv, stamp the session, and look up
the replayed call that fills a template slot. Standard library only; imported from the seeder's own
directory (the support mount copies it beside them: cli-continuation.ts).
"""
import json
import sys
import time
import uuid


class SeedError(Exception):
    """The template and the replay disagree (the seeder exits 2 with the message)."""


def read_inputs(usage: str):
    """(template, replayed calls by id, home) from argv, or None after printing the usage."""
    if len(sys.argv) != 4:
        print(usage, file=sys.stderr)
        return None
    with open(sys.argv[1], encoding="utf-8") as handle:
        template = json.load(handle)
    with open(sys.argv[2], encoding="utf-8") as handle:
        replayed = {call["id"]: call for call in json.load(handle)["calls"]}
    return template, replayed, sys.argv[3]


def session_clock():
    """(epoch seconds, ISO-8601 millisecond UTC stamp, a fresh session uuid)."""
    now = time.time()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + ".%03dZ" % int((now % 1) * 1000)
    return now, stamp, str(uuid.uuid4())


def replayed_call(replayed, call_id: str):
    call = replayed.get(call_id)
    if call is None:
        raise SeedError("SANDBENCH_SEED_ERROR no replayed call %s for the template's slot" % call_id)
    return call
