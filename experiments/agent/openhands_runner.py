"""The OpenHands agent inside a sandbox: the SDK's in-process path (openhands-sdk/-tools 1.34.0,
LocalConversation, tools run here), the offline path of field-integrations.md §2 (the CLI clones a
skills repository and checks PyPI on every start; the SDK does neither).

    usage: openhands RUNNER.py PROMPT        (bin/openhands of the layer is its CPython 3.12)
    env:   SANDBENCH_OPENHANDS_BASE_URL (…/v1 of the model service), SANDBENCH_OPENHANDS_PERSIST
           (the conversation's persistence_dir; its events are joined into one JSON array,
           SANDBENCH_OPENHANDS_EVENTS, after the run)

It prints one marker line per phase, `AGENT_PHASE <name>` (experiments/agent/agent-phases.ts), flushed, so the host stamps each on
its own clock as the line arrives (a VM guest's clock never enters a figure): `start` (interpreter
up), `imported` (the SDK and tools imported: most of the ~12 s to the first request), `conversation`
(agent and conversation built), `finished` (the run returned). Exit 0 only when the conversation
ended FINISHED. Last, `AGENT_RSS_PEAK_KIB <n>`: getrusage's peak RSS of this process (not of its
children: a forked child's ru_maxrss counts the parent's pages it shared at fork, 272 MiB for a
`printf`, so that figure would mislead).
"""

import json
import os
import resource
import sys


def phase(name, detail=""):
    print(f"AGENT_PHASE {name}{' ' + detail if detail else ''}", flush=True)


phase("start")
# The interpreter's own library path must not leak into the commands the terminal tool runs.
os.environ.pop("LD_LIBRARY_PATH", None)

from pydantic import SecretStr  # noqa: E402
from openhands.sdk import LLM, Agent, Conversation, Tool  # noqa: E402
from openhands.tools.file_editor import FileEditorTool  # noqa: E402
from openhands.tools.terminal import TerminalTool  # noqa: E402

phase("imported")


def join_events(persist_dir, out_path):
    """persistence_dir/<conversation>/events/event-NNNNN-<uuid>.json → one JSON array, in event order."""
    events = []
    for root, _dirs, files in os.walk(persist_dir):
        if os.path.basename(root) != "events":
            continue
        for name in sorted(f for f in files if f.startswith("event-") and f.endswith(".json")):
            with open(os.path.join(root, name), encoding="utf-8") as handle:
                events.append(json.load(handle))
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump(events, handle)
    return len(events)


def main():
    prompt = sys.argv[1]
    persist = os.environ["SANDBENCH_OPENHANDS_PERSIST"]
    llm = LLM(
        model="openai/fake-model",
        base_url=os.environ["SANDBENCH_OPENHANDS_BASE_URL"],
        api_key=SecretStr("sandbench-offline-key"),
        usage_id="agent",
        # A failed request is the service's verdict to record, never one to retry with backoff.
        num_retries=0,
    )
    # The subprocess terminal on every backend: the task image has no tmux, and on the host a tmux
    # server would outlive the trial (it daemonizes out of the launched tree).
    terminal = Tool(name=TerminalTool.name, params={"terminal_type": "subprocess"})
    agent = Agent(llm=llm, tools=[terminal, Tool(name=FileEditorTool.name)])
    conversation = Conversation(agent=agent, workspace=os.getcwd(), persistence_dir=persist, visualizer=None)
    phase("conversation")
    conversation.send_message(prompt)
    conversation.run()
    status = str(conversation.state.execution_status.value)
    phase("finished", status)
    events_path = os.environ.get("SANDBENCH_OPENHANDS_EVENTS")
    if events_path:
        phase("events", str(join_events(persist, events_path)))
    print(f"AGENT_RSS_PEAK_KIB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", flush=True)
    return 0 if status == "finished" else 3


if __name__ == "__main__":
    sys.exit(main())
