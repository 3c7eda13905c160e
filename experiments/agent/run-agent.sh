#!/bin/sh
# In-sandbox entry of one `agent` trial: a fresh HOME (cold start on every backend), the model
# endpoint (direct URL, or the TCP->Unix forwarder started here and marked FORWARDER_READY so its
# cost is reported apart), the CLI's offline configuration written by sandbench (no telemetry,
# update checks or plugin fetches; approvals off: data/agents/agent-clis.md), then the CLI itself.
# Exit status is the CLI's (a signal death shows as 128+N, e.g. 132 for SIGILL).
#   usage: run-agent.sh AGENT PROMPT
#   env:   SANDBENCH_AGENT_LAYER (the layer: bin/<cli>), SANDBENCH_MODEL_ROUTE (/t/<task>/a/<trial>),
#          SANDBENCH_SERVICE_URL or
#          SANDBENCH_SERVICE_SOCKET (from the executor), SANDBENCH_AGENT_TMP (where the fresh HOME
#          goes: the sandbox's private /tmp, or on the host the trial's scratch dir, so a killed
#          trial leaves nothing outside the run's scratch), SANDBENCH_AGENT_TRAJECTORY_DIR (optional:
#          the CLI then keeps its native trajectory and it is copied there before the fresh HOME goes;
#          the rollout kind sets it to /workspace/.sandbench-rollout/native, which every backend
#          returns with the candidate. File names per CLI: agents.ts `nativeTrajectory`)
set -u
agent=$1 prompt=$2
layer=$SANDBENCH_AGENT_LAYER
support=$(dirname "$0")
home=$(mktemp -d "${SANDBENCH_AGENT_TMP:-/tmp}/agent-home.XXXXXX") || exit 96
export HOME="$home" TMPDIR="$home/tmp" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state"
mkdir -p "$TMPDIR" "$XDG_CONFIG_HOME"
trajdir=${SANDBENCH_AGENT_TRAJECTORY_DIR:-}
# Session-persistence flags apply only when nobody collects the trajectory (the agent kind: no disk writes it does not need).
ephemeral=--ephemeral no_persist=--no-session-persistence
stdout_to= session_glob= session_root=
if [ -n "$trajdir" ]; then
  mkdir -p "$trajdir" || exit 96
  ephemeral= no_persist=
fi
. "$support/model-endpoint.sh"
cleanup() {
  model_endpoint_stop
  rm -rf "$home"
}

model_endpoint "$home" || { cleanup; exit 97; }
[ -n "$fwd" ] && echo FORWARDER_READY

# The route prefix names the script task and this trial (the journal's task_id and attempt).
url="$url${SANDBENCH_MODEL_ROUTE:-}"
key=sandbench-offline-key
case "$agent" in
  codex)
    export CODEX_HOME="$home/.codex" SANDBENCH_MODEL_KEY=$key
    . "$support/codex-config.sh"
    write_codex_config "$CODEX_HOME" "$url" || exit 96
    session_root=$CODEX_HOME/sessions session_glob='rollout-*.jsonl' native=codex-rollout.jsonl
    set -- "$layer/bin/codex" exec --skip-git-repo-check $ephemeral --dangerously-bypass-approvals-and-sandbox "$prompt"
    ;;
  claude)
    # IS_SANDBOX=1: as root, --dangerously-skip-permissions is refused without it (rc 1, no request).
    export ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=$key ANTHROPIC_MODEL=fake-model ANTHROPIC_SMALL_FAST_MODEL=fake-model \
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1
    session_root=$HOME/.claude/projects session_glob='*.jsonl' native=claude-session.jsonl
    set -- "$layer/bin/claude" --bare --tools Bash $no_persist --dangerously-skip-permissions -p "$prompt"
    ;;
  opencode)
    export OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
      OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_CLAUDE_CODE=1
    config="$XDG_CONFIG_HOME/opencode"
    mkdir -p "$config"
    # The plugin opencode would npm-install on every start, pre-installed in the layer (read-only).
    ln -s "$layer/opencode-config/node_modules" "$config/node_modules"
    cp "$layer/opencode-config/package.json" "$config/package.json"
    printf 'registry=http://127.0.0.1:9/\n' > "$config/.npmrc"
    cat > "$config/opencode.json" << EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "lsp": false,
  "formatter": false,
  "permission": { "bash": "allow", "edit": "allow" },
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "sandbench",
      "options": { "baseURL": "$url/v1", "apiKey": "$key" },
      "models": { "fake-model": { "name": "fake-model" } }
    }
  }
}
EOF
    # Its own store is an SQLite db (no parser reads it); the trajectory sandbench parses is the `--format json` event stream.
    format=
    [ -n "$trajdir" ] && format='--format json' stdout_to=$trajdir/opencode-events.jsonl
    set -- "$layer/bin/opencode" run $format --model fake/fake-model --title sandbench "$prompt"
    ;;
  pi)
    export PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0
    mkdir -p "$HOME/.pi/agent"
    cat > "$HOME/.pi/agent/models.json" << EOF
{
  "providers": {
    "fake": {
      "baseUrl": "$url/v1",
      "api": "openai-completions",
      "apiKey": "$key",
      "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
      "models": [{ "id": "fake-model" }]
    }
  }
}
EOF
    # Its session file (~/.pi/agent/sessions) is not the format sandbench parses; the `--mode json` event stream is.
    mode=
    [ -n "$trajdir" ] && mode='--mode json' stdout_to=$trajdir/pi-events.jsonl
    set -- "$layer/bin/pi" --offline --no-session $mode --provider fake --model fake-model --tools bash --no-extensions --no-skills \
      --no-prompt-templates --no-themes --no-context-files -p "$prompt"
    ;;
  mini-swe-agent)
    # MSWEA_CONFIGURED skips the first-run wizard; the cost map is read locally (else a DNS lookup of
    # raw.githubusercontent.com); no byte code is written into the read-only layer. It ends only on
    # its submit tool call, which the model service sends for the script's final text turn.
    export MSWEA_CONFIGURED=true MSWEA_GLOBAL_CONFIG_DIR="$XDG_CONFIG_HOME/mini-swe-agent" MSWEA_COST_TRACKING=ignore_errors \
      MSWEA_SILENT_STARTUP=1 LITELLM_LOCAL_MODEL_COST_MAP=True OPENAI_API_KEY=$key HF_HUB_OFFLINE=1 PYTHONDONTWRITEBYTECODE=1
    set -- "$layer/bin/mini-swe-agent" -y --exit-immediately -m openai/fake-model -c mini.yaml \
      -c "model.model_kwargs.api_base=$url/v1" -o "$home/trajectory.json" -t "$prompt"
    session_root=$home session_glob=trajectory.json native=mini-trajectory.json
    ;;
  openhands)
    # The SDK runner (openhands_runner.py): the cost map read locally (else litellm fetches it and
    # retries), no .env in the cwd (the empty workspace; the SDK would read OTEL/Laminar keys from
    # it), no banner. The events go to the trajectory dir, else the workspace, which every backend returns.
    export LITELLM_LOCAL_MODEL_COST_MAP=True OPENHANDS_SUPPRESS_BANNER=1 SANDBENCH_OPENHANDS_BASE_URL="$url/v1" \
      SANDBENCH_OPENHANDS_PERSIST="$home/openhands-conversations"
    events_dir=${trajdir:-$PWD/.sandbench-agent}
    mkdir -p "$events_dir" || exit 96
    export SANDBENCH_OPENHANDS_EVENTS="$events_dir/openhands-events.json"
    set -- "$layer/bin/openhands" "$support/openhands_runner.py" "$prompt"
    ;;
  *)
    echo "SANDBENCH_AGENT_ERROR run-agent.sh has no branch for agent $agent" >&2
    cleanup
    exit 98
    ;;
esac

if [ -n "$stdout_to" ]; then
  "$@" < /dev/null > "$stdout_to"
else
  "$@" < /dev/null
fi
code=$?
# Exactly one session file is the trajectory; none or several is said in collect-error.txt (the host records why).
if [ -n "$trajdir" ] && [ -n "$session_glob" ]; then
  found=$(find "$session_root" -maxdepth 4 -type f -name "$session_glob" 2> /dev/null)
  count=$(printf '%s' "$found" | grep -c .)
  if [ "$count" -eq 1 ]; then
    cp "$found" "$trajdir/$native" || echo "copying $found failed" > "$trajdir/collect-error.txt"
  else
    printf '%s session files matched %s/**/%s: %s\n' "$count" "$session_root" "$session_glob" "$(echo $found)" > "$trajdir/collect-error.txt"
  fi
fi
cleanup
exit "$code"
