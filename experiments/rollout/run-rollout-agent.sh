#!/bin/sh
# In-sandbox entry of one rollout attempt (cwd /workspace). AGENT `builtin` runs the built-in agent
# (agent.py, beside this script) against the model endpoint: the direct URL, or the TCP->Unix
# forwarder started here (FORWARDER_READY marks its start apart). Any other AGENT is an agent-kind
# CLI: run-agent.sh (copied beside this script) does its offline configuration and forwarder, and
# copies the CLI's native trajectory into .sandbench-rollout/native/.
# The prompt and the trajectory live in .sandbench-rollout/ (never part of the candidate).
#   usage: run-rollout-agent.sh AGENT PROMPT
#   env:   SANDBENCH_MODEL_ROUTE (/t/<script task>/a/<attempt>), SANDBENCH_SERVICE_URL or
#          SANDBENCH_SERVICE_SOCKET, SANDBENCH_AGENT_TMP (scratch for the forwarder's output),
#          SANDBENCH_ROLLOUT_MAX_TURNS, SANDBENCH_ROLLOUT_TOOL_TIMEOUT (seconds)
set -u
# The sandbox runs our code: the end of the attempt's start (experiments/rollout/attempt-start.ts frees its admission slot here).
echo REFERENCE_READY
agent=$1 prompt=$2
support=$(dirname "$0")
if [ "$agent" != builtin ]; then
  # The CLI's native trajectory is copied here before its HOME goes with the sandbox (the kind reads it back).
  SANDBENCH_AGENT_TRAJECTORY_DIR=$PWD/.sandbench-rollout/native exec /bin/sh "$support/run-agent.sh" "$agent" "$prompt"
fi
meta=.sandbench-rollout
mkdir -p "$meta" || exit 96
printf '%s' "$prompt" > "$meta/prompt.txt"
. "$support/model-endpoint.sh"
model_endpoint "${SANDBENCH_AGENT_TMP:-/tmp}" || exit 97
[ -n "$fwd" ] && echo FORWARDER_READY
python3 "$support/agent.py" --base-url "$url${SANDBENCH_MODEL_ROUTE:-}" --prompt-file "$meta/prompt.txt" \
  --trajectory "$meta/trajectory.json" --max-turns "${SANDBENCH_ROLLOUT_MAX_TURNS:-20}" \
  --tool-timeout "${SANDBENCH_ROLLOUT_TOOL_TIMEOUT:-30}" < /dev/null
code=$?
model_endpoint_stop
exit "$code"
