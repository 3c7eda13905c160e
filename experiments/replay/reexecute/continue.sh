#!/bin/sh
# In-sandbox entry of one `continue` trial (issue 19), cwd /workspace: re-execute the prefix
# (replay-driver.py, which writes the prompt and the replayed prefix into .sandbench-replay/), then
# continue it with the built-in agent (agent.py --resume-from) against the model service: the direct
# URL, or the TCP->Unix forwarder started here. CONTINUE_START marks, on the host clock, where the
# replay ends and the continuation begins.
#   usage: continue.sh CALLS_FILE     env: SANDBENCH_MODEL_ROUTE, SANDBENCH_SERVICE_URL or SANDBENCH_SERVICE_SOCKET
set -u
support=$(dirname "$0")
meta=.sandbench-replay
python3 "$support/replay-driver.py" "$1" --meta "$meta" || exit 95
echo CONTINUE_START
. "$support/model-endpoint.sh"
model_endpoint /tmp || exit 97
python3 "$support/agent.py" --base-url "$url${SANDBENCH_MODEL_ROUTE:-}" --prompt-file "$meta/prompt.txt" \
  --trajectory "$meta/trajectory.json" --resume-from "$meta/history.json" --max-turns 4 --tool-timeout 30 < /dev/null
code=$?
model_endpoint_stop
exit "$code"
