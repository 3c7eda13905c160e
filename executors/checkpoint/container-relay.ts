/**
 * What the podman and docker checkpoint mechanisms share: a container's state server is reached
 * through a relay process run inside the container's network namespace (nsenter -n), registered
 * for cleanup with the trial's resources.
 */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { HOST_PYTHON } from './host-mechanism.ts';
import type { MechanismTrial, ParentSandbox, ProgramCommand, Sandbox } from './mechanism.ts';
import { spawnStateProcess, stopStateProcess, type StateProcess } from './state-process.ts';
import type { TrialResources } from './tracked.ts';

export const STATE_PORT = 7777;

const LINE_RELAY_SCRIPT = join(PROJECT_ROOT, 'executors', 'checkpoint', 'line_relay.py');

/** A StateProgram's `relay` for a `tcp` server answering with `prefix`: the relay greets with the program's own ready line. */
export function lineRelay(port: number, prefix: string): ProgramCommand {
  return { argv: [HOST_PYTHON, '-u', LINE_RELAY_SCRIPT, String(port), prefix], env: { PYTHONDONTWRITEBYTECODE: '1' } };
}

export interface ContainerSandbox {
  name: string;
  relay: StateProcess;
}

export interface ContainerRelays {
  /** The container's init pid (its namespaces are the sandbox's). */
  initPid(name: string): Promise<number>;
  /** Start the relay into `name`'s netns and return the sandbox the checks talk to. */
  connect(trial: MechanismTrial, name: string, id: string): Promise<Sandbox>;
  /**
   * Before a CRIU checkpoint: sync the server, then end the parent's relay (an established TCP
   * connection cannot be checkpointed without --tcp-established, which podman refuses with --name)
   * and give the server a moment to return to accept().
   */
  quiesce(parent: ParentSandbox): Promise<void>;
}

/** `engine` runs one engine command (`inspect ...`) and returns its stdout, throwing on failure. */
export function containerRelays(
  engineName: 'podman' | 'docker',
  engine: (args: string[], what: string) => Promise<string>,
  resourcesOf: (trial: MechanismTrial) => TrialResources,
  sandboxes: Map<string, ContainerSandbox>,
): ContainerRelays {
  const initPid = async (name: string): Promise<number> => {
    const pid = Number(await engine(['inspect', '--format', '{{.State.Pid}}', name], 'inspect'));
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${engineName}: container ${name} is not running`);
    return pid;
  };
  const connect = async (trial: MechanismTrial, name: string, id: string): Promise<Sandbox> => {
    const pid = await initPid(name);
    const relayCommand = trial.program.relay(STATE_PORT);
    const relay = spawnStateProcess({
      runId: trial.run.runId,
      argv: ['nsenter', '-t', String(pid), '-n', ...relayCommand.argv],
      env: relayCommand.env,
      timeoutMs: trial.timeoutMs,
      prefix: trial.program.answerPrefix,
      describe: `${engineName} ${id} relay`,
    });
    resourcesOf(trial).add('process', `${engineName} ${id} relay`, () => relay.running.kill('cleanup'));
    sandboxes.set(`${trial.trialId}/${id}`, { name, relay });
    return { id, channel: relay.channel, pids: async () => [await initPid(name)], facts: { container: name } };
  };
  const quiesce = async (parent: ParentSandbox): Promise<void> => {
    await parent.channel.request({ op: 'sync' });
    const entry = [...sandboxes.values()].find((value) => value.name === parent.internal);
    if (entry) await stopStateProcess(entry.relay);
    await new Promise((resolve) => setTimeout(resolve, 200));
  };
  return { initPid, connect, quiesce };
}
