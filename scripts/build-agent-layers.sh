#!/bin/sh
# Builds (or finds cached) the agent CLI layers the agent kind runs, into $SANDBENCH_HOME/agents
# (default ~/.cache/sandbench/agents), exactly as a run would (experiments/agent/layers.ts: built
# into a temporary name, renamed when complete, layer.json recorded). scripts/setup.sh builds the
# ones CI runs (agent-ci.yaml: codex and pi); name others to build them ahead of a run.
#   scripts/build-agent-layers.sh AGENT...   (codex claude opencode pi mini-swe-agent)
set -eu
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || { echo "usage: $0 AGENT..." >&2; exit 2; }
exec node --import tsx --input-type=module -e "
import { stateDir } from './harness/state-dir.ts';
import { agentByName } from './experiments/agent/agents.ts';
import { ensureLayer } from './experiments/agent/layers.ts';
for (const name of process.argv.slice(1)) {
  const started = Date.now();
  const layer = await ensureLayer(stateDir(), agentByName(name, 'build-agent-layers'), (m) => console.error(m));
  console.log(name + ' ' + layer.meta.reported_version + ' at ' + layer.dir + ' (' + (Date.now() - started) + ' ms)');
}
" "$@"
