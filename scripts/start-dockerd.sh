#!/bin/sh
# Start (and pin) the harness's private dockerd so several runs reuse one daemon, or stop it.
#   scripts/start-dockerd.sh start|stop|status
# Without this script every run starts the daemon itself and the last run using it stops it.
# The daemon lives under $SANDBENCH_HOME/docker (default ~/.cache/sandbench/docker).
set -eu
cd "$(dirname "$0")/.."
action="${1:-start}"
case "$action" in start|stop|status) ;; *) echo "usage: $0 start|stop|status" >&2; exit 2 ;; esac
exec node --import tsx --input-type=module -e "
import { stateDir } from './harness/state-dir.ts';
import { dockerCli } from './executors/docker.ts';
import { dockerdPaths, engineAnswers, pinHarnessDockerd, unpinHarnessDockerd } from './executors/dockerd-manager.ts';
const action = '$action';
const home = stateDir();
const paths = dockerdPaths(home);
if (action === 'start') {
  await pinHarnessDockerd({ stateDir: home, cli: dockerCli(), log: (m) => console.error(m) });
  console.log('harness dockerd running (pinned): DOCKER_HOST=' + paths.host);
} else if (action === 'stop') {
  const { stopped, holders } = await unpinHarnessDockerd(home);
  console.log(stopped ? 'harness dockerd stopped' : holders.length ? 'unpinned; still used by ' + holders.join(', ') + ' (the last one stops it)' : 'no harness dockerd was running');
} else {
  console.log((await engineAnswers(dockerCli(), paths.host)) ? 'running on ' + paths.host : 'not running');
}
"
