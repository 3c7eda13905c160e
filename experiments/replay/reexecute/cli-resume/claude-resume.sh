#!/bin/sh
# In-sandbox entry of one `continue` trial through Claude Code's native resume (issue 19), cwd
# /workspace: re-execute the prefix (replay-driver.py writes the replayed calls into
# .sandbench-replay/), seed a fresh HOME's ~/.claude/projects/ with them (seed-claude-session.py, from
# the host-built template), then `claude --resume <SESSION_ID> -p PROMPT` against the model service
# (the direct URL, or the TCP->Unix forwarder started here). Markers as codex-resume.sh:
# CONTINUE_START, SEEDED_SESSION <id>. HOME lives in the workspace's .sandbench-replay/.
#   usage: claude-resume.sh CALLS_FILE TEMPLATE
#   env:   SANDBENCH_AGENT_LAYER (bin/claude), SANDBENCH_MODEL_ROUTE, SANDBENCH_SERVICE_URL or SANDBENCH_SERVICE_SOCKET
#   exit:  95 the replay, 96/97 the forwarder, 98 seeding, 2 claude failed (SANDBENCH_CLI_EXIT <rc> on stderr), else 0
set -u
support=$(dirname "$0")
meta=.sandbench-replay
python3 "$support/replay-driver.py" "$1" --meta "$meta" || exit 95
echo CONTINUE_START
home=$PWD/$meta/claude-home
export HOME="$home" TMPDIR="$home/tmp" XDG_CONFIG_HOME="$home/.config" XDG_CACHE_HOME="$home/.cache" XDG_DATA_HOME="$home/.local/share" XDG_STATE_HOME="$home/.local/state"
mkdir -p "$TMPDIR" "$XDG_CONFIG_HOME" || exit 98
. "$support/model-endpoint.sh"
finish() {
  model_endpoint_stop
  exit "$1"
}
model_endpoint "$home" || exit 97
session=$(python3 "$support/seed-claude-session.py" "$2" "$meta/replayed.json" "$HOME") || finish 98
echo "SEEDED_SESSION $session"
# The same offline environment as the agent kind's claude (experiments/agent/run-agent.sh), with session persistence.
export ANTHROPIC_BASE_URL="$url${SANDBENCH_MODEL_ROUTE:-}" ANTHROPIC_API_KEY=sandbench-offline-key ANTHROPIC_MODEL=fake-model ANTHROPIC_SMALL_FAST_MODEL=fake-model \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1
"$SANDBENCH_AGENT_LAYER/bin/claude" --bare --tools Bash --dangerously-skip-permissions --resume "$session" \
  -p "Continue the task from where it stopped." < /dev/null
code=$?
[ "$code" -ne 0 ] && echo "SANDBENCH_CLI_EXIT $code" >&2 && finish 2
finish 0
