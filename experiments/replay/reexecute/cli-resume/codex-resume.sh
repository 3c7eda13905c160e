#!/bin/sh
# In-sandbox entry of one `continue` trial through codex's native resume (issue 19), cwd /workspace:
# re-execute the prefix (replay-driver.py writes the replayed calls into .sandbench-replay/), seed a
# fresh CODEX_HOME's session store with them (seed-codex-session.py, from the host-built template in
# the layer's rollout shape), then `codex exec resume <SESSION_ID> PROMPT` against the model service
# (the direct URL, or the TCP->Unix forwarder started here). CONTINUE_START marks, on the host
# clock, where the replay ends; SEEDED_SESSION <id> names the session codex is asked to resume.
# CODEX_HOME lives in the workspace's .sandbench-replay/ (never beside it), so nothing leaks out of
# the trial and the session file codex appends to is collected with the workspace.
#   usage: codex-resume.sh CALLS_FILE TEMPLATE
#   env:   SANDBENCH_AGENT_LAYER (bin/codex), SANDBENCH_MODEL_ROUTE, SANDBENCH_SERVICE_URL or SANDBENCH_SERVICE_SOCKET
#   exit:  95 the replay, 96/97 the forwarder, 98 seeding, 2 codex failed (SANDBENCH_CLI_EXIT <rc> on stderr), else 0
set -u
support=$(dirname "$0")
meta=.sandbench-replay
python3 "$support/replay-driver.py" "$1" --meta "$meta" || exit 95
echo CONTINUE_START
home=$PWD/$meta/codex-home
export HOME="$home" CODEX_HOME="$home/.codex" TMPDIR="$home/tmp" SANDBENCH_MODEL_KEY=sandbench-offline-key
mkdir -p "$CODEX_HOME" "$TMPDIR" || exit 98
. "$support/model-endpoint.sh"
finish() {
  model_endpoint_stop
  exit "$1"
}
model_endpoint "$home" || exit 97
# The same offline configuration as the agent kind's codex (experiments/agent/codex-config.sh), without --ephemeral.
. "$support/codex-config.sh"
write_codex_config "$CODEX_HOME" "$url${SANDBENCH_MODEL_ROUTE:-}" || finish 98
session=$(python3 "$support/seed-codex-session.py" "$2" "$meta/replayed.json" "$CODEX_HOME") || finish 98
echo "SEEDED_SESSION $session"
"$SANDBENCH_AGENT_LAYER/bin/codex" exec resume --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox \
  "$session" "Continue the task from where it stopped." < /dev/null
code=$?
[ "$code" -ne 0 ] && echo "SANDBENCH_CLI_EXIT $code" >&2 && finish 2
finish 0
