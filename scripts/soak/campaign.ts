/**
 * The soak's mixed campaign: the steps one cycle runs, in order. Measured runs go through the run loop
 * in this process (harness/run/run-spec.ts with the CLI's wiring, exactly what `sandbench run` calls),
 * so the soak process is the long-lived harness whose memory and descriptors are sampled. The
 * killed-and-resumed run goes through the real CLI as child processes, since it must be SIGKILLed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { RunWiring } from '../../harness/contracts/wiring.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import type { SpecOverrides } from '../../harness/spec/resolve-spec.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

export interface StepContext {
  /** A fresh bundle directory for this step's run. */
  bundleDir: string;
  wiring: RunWiring;
  log: (message: string) => void;
}

export interface CampaignStep {
  name: string;
  /** Resolves when the step did what it should; throws naming what did not happen. */
  run(context: StepContext): Promise<void>;
}

export const CAMPAIGN_PROFILES = ['full', 'ci'] as const;
export type CampaignProfile = (typeof CAMPAIGN_PROFILES)[number];

const SOAK_SPECS = join(PROJECT_ROOT, 'scripts', 'soak', 'specs');
const SANDBENCH_BIN = join(PROJECT_ROOT, 'bin', 'sandbench.mjs');
/** How long the killed run may take to journal its first trial before the step is called failed. */
const FIRST_TRIAL_TIMEOUT_MS = 300_000;

function inProcessRun(name: string, specPath: string, overrides: SpecOverrides = {}): CampaignStep {
  return {
    name,
    async run({ bundleDir, wiring, log }) {
      const result = await runSpec({ specPath, overrides, out: bundleDir, requireAll: false, log, wiring });
      if (result.interruptedBy) throw new Error(`${name}: interrupted by ${result.interruptedBy}`);
    },
  };
}

function journalLines(bundleDir: string): number {
  const path = join(bundleDir, 'journal.jsonl');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line.trim()).length : 0;
}

async function cli(args: string[], what: string): Promise<void> {
  const result = await execa('node', [SANDBENCH_BIN, ...args], { reject: false, all: true });
  if (result.exitCode !== 0) throw new Error(`${what}: \`sandbench ${args.join(' ')}\` exited ${result.exitCode}: ${(result.all ?? '').trim().split('\n').slice(-3).join(' | ')}`);
}

/** SIGKILL a `sandbench run` once its journal holds a trial, then `run --resume` it and `verify` it. */
function killedAndResumed(specPath: string, overrides: { arms?: string[] } = {}): CampaignStep {
  return {
    name: 'killed-resumed',
    async run({ bundleDir, log }) {
      const arms = overrides.arms ? ['--arms', overrides.arms.join(',')] : [];
      const child = execa('node', [SANDBENCH_BIN, 'run', specPath, '--out', bundleDir, ...arms], { reject: false, all: true });
      const deadline = Date.now() + FIRST_TRIAL_TIMEOUT_MS;
      while (journalLines(bundleDir) === 0 && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (child.exitCode !== null) throw new Error(`killed-resumed: the run ended (exit ${child.exitCode}) before it could be killed mid-run: ${(await child).all?.split('\n').slice(-2).join(' | ')}`);
      if (journalLines(bundleDir) === 0) throw new Error(`killed-resumed: no trial journaled within ${FIRST_TRIAL_TIMEOUT_MS / 1000} s`);
      child.kill('SIGKILL');
      await child;
      log(`killed-resumed: SIGKILLed pid ${child.pid} after ${journalLines(bundleDir)} journaled trial(s); resuming`);
      await cli(['run', '--resume', bundleDir], 'killed-resumed: resume');
      await cli(['verify', bundleDir], 'killed-resumed: verify');
    },
  };
}

const spec = (name: string) => join(SOAK_SPECS, name);
const CHECKPOINT_CI = join(PROJECT_ROOT, 'experiments', 'specs', 'checkpoint-ci.yaml');

/**
 * `full`: every fast backend in each step, and checkpoint-ci.yaml's five arms (qemu-microvm
 * included, so qemu processes are exercised) at one block. `ci`: the same steps on fewer arms, so a
 * warm-up cycle plus enough samples fit in about five minutes on 2 cores.
 */
export function campaignSteps(profile: CampaignProfile): CampaignStep[] {
  if (profile === 'ci') {
    return [
      inProcessRun('rollout', spec('rollout.yaml'), { arms: ['host', 'staged'] }),
      inProcessRun('density', spec('density.yaml'), { arms: ['host', 'podman'] }),
      inProcessRun('checkpoint', CHECKPOINT_CI, { arms: ['staged', 'host'], trials: 1 }),
      killedAndResumed(spec('killed.yaml'), { arms: ['host', 'staged'] }),
    ];
  }
  return [
    inProcessRun('rollout', spec('rollout.yaml')),
    inProcessRun('density', spec('density.yaml')),
    inProcessRun('checkpoint', CHECKPOINT_CI, { trials: 1 }),
    killedAndResumed(spec('killed.yaml')),
  ];
}
