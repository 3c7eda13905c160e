#!/bin/sh
# The exact agent releases pvisor-replay 0.3.1 --replay-only insists on (it runs `<agent> --version`
# and refuses any other release; the replay formats pin them, experiments/replay/agents.ts):
# codex 0.149.0 and Claude Code 2.1.220, each installed from the npm registry into
# $SANDBENCH_HOME/agents/pinned/<agent>-<version> (default ~/.cache/sandbench). Specs name them in
# replay.pvisor_agent_entrypoints (a relative path is looked for beside the spec file, then in
# the package, then in the state directory: experiments/replay/pinned-entrypoints.ts).
set -eu
home="${SANDBENCH_HOME:-$HOME/.cache/sandbench}"
install() {
  dir="$home/agents/pinned/$1-$2"
  if [ -x "$dir/node_modules/.bin/$4" ]; then echo "$dir ok"; return; fi
  rm -rf "$dir.partial"
  npm install --prefix "$dir.partial" --no-save --no-audit --no-fund "$3@$2" >/dev/null
  rm -rf "$dir" && mv "$dir.partial" "$dir"
  echo "$dir installed: $("$dir/node_modules/.bin/$4" --version)"
}
install codex 0.149.0 @openai/codex codex
install claude-code 2.1.220 @anthropic-ai/claude-code claude
