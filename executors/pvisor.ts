/**
 * `pvisor`: pVisor's own staged executor, when a `pvisor` command is on PATH (pip install
 * pvisor-sandbox). pVisor 0.3's agent-job entry point is `pvisor spawn` (the study's harness called
 * it `pvisor run`; in 0.3 `run` is the OCI-container command), so trials launch
 * `pvisor spawn --no-agent-defaults --overlaynet off --stdio inherit --timeout <t> --stage <dir> -- argv`
 * with the baseline workspace as working directory. Variant `vm` adds `--executor vm` and needs KVM.
 * A trial counts only when the stage's run-bundle.json proves what pVisor claims: state completed,
 * the declared isolation, staged filesystem changes and non-bypassable filesystem boundaries.
 * Limitation: the rootless-process executor runs the host's root filesystem, not the task image.
 */
import type { ArmBuild } from '../harness/spec/arm-build.ts';
import { buildBinaryDetails } from '../harness/provenance/build-identity.ts';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import type { CandidateFiles, ExitInfo, ProbeResult, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding, ExecutorImplementation } from '../harness/contracts/executor.ts';
import { launchControls } from './launch/launch-controls.ts';
import { listUpperLayer } from './overlay-upper.ts';
import { startTrial } from './spawn-trial.ts';
import { kvmUsable } from '../harness/provenance/host-facts.ts';

/** The fields of pVisor's run-bundle.json a trial's validity depends on (schema_version 5 seen with 0.3.1). */
const RunBundleSchema = z.object({
  run: z.object({ state: z.string(), exit_code: z.number().nullable().optional(), executor: z.object({ isolation: z.string() }) }),
  safety: z
    .object({
      filesystem_changes_staged: z.boolean().optional(),
      filesystem_non_bypassable: z.boolean().optional(),
      filesystem_read_non_bypassable: z.boolean().optional(),
      filesystem_write_non_bypassable: z.boolean().optional(),
    })
    .optional(),
});
type RunBundle = z.infer<typeof RunBundleSchema>;

const DECLARED_ISOLATION: Record<string, string> = { staged: 'rootless_process', vm: 'virtual_machine' };
const NON_BYPASSABLE_FLAGS = ['filesystem_non_bypassable', 'filesystem_read_non_bypassable', 'filesystem_write_non_bypassable'] as const;

const stageOf = (trial: TrialContext) => join(trial.trialDir, 'stage');

/** Why a finished pVisor trial cannot count, or null when run-bundle.json proves the declared boundary. */
export function auditRunBundle(bundle: RunBundle, variant: 'staged' | 'vm'): ExitInfo['infraFailure'] | null {
  const declared = DECLARED_ISOLATION[variant]!;
  if (bundle.run.executor.isolation !== declared) {
    return { category: 'isolation_refused', reason: `pvisor ran with isolation ${bundle.run.executor.isolation}, declared ${declared}` };
  }
  if (!bundle.safety?.filesystem_changes_staged) return { category: 'isolation_refused', reason: 'pvisor did not stage filesystem changes' };
  if (variant === 'staged') {
    const missing = NON_BYPASSABLE_FLAGS.filter((flag) => bundle.safety?.[flag] !== true);
    if (missing.length > 0) return { category: 'isolation_refused', reason: `pvisor boundary not non-bypassable: ${missing.join(', ')}` };
  }
  return null;
}

function readRunBundle(stage: string): { bundle: RunBundle } | { error: string } {
  const path = join(stage, 'run-bundle.json');
  if (!existsSync(path)) return { error: 'pvisor wrote no run-bundle.json' };
  const parsed = RunBundleSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  return parsed.success ? { bundle: parsed.data } : { error: `run-bundle.json unreadable: ${parsed.error.issues[0]?.message}` };
}

export function createPvisorExecutor(variant: string | null = null, build?: ArmBuild): ExecutorImplementation {
  const mode: 'staged' | 'vm' = variant === 'vm' ? 'vm' : 'staged';
  // The arm's build.pvisor (a pVisor release under test) replaces `pvisor` on PATH for this arm.
  const cli = build?.pvisor ?? 'pvisor';
  return {
    backend: 'pvisor',
    variant,
    async probe(): Promise<ProbeResult> {
      const version = await execa(cli, ['--version'], { reject: false });
      if (version.failed || version.exitCode !== 0) {
        return build?.pvisor
          ? { backend: 'pvisor', available: false, version: null, details: {}, reason: `build.pvisor ${cli} --version failed: ${(version.stderr || version.stdout).trim().split('\n')[0] ?? ''}`, fix: 'point build.pvisor at a working pvisor CLI' }
          : { backend: 'pvisor', available: false, version: null, details: {}, reason: 'no `pvisor` command on PATH', fix: 'pip install pvisor-sandbox (then put its bin/ on PATH)' };
      }
      if (mode === 'vm' && !kvmUsable()) {
        return { backend: 'pvisor', available: false, version: version.stdout.trim(), details: {}, reason: 'pvisor --executor vm needs /dev/kvm; this machine has none', fix: 'run on a host with KVM' };
      }
      return { backend: 'pvisor', available: true, version: version.stdout.trim(), details: { executor: mode === 'vm' ? 'vm' : 'host (rootless_process)', root_filesystem: 'host (not the task image)', ...(await buildBinaryDetails(build)) } };
    },
    async prepare() {},
    async stageWorkspace(trial): Promise<WorkspaceBinding> {
      mkdirSync(trial.trialDir, { recursive: true });
      return { hostPath: trial.baselineWorkspace, claimsStaging: true };
    },
    async launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial> {
      // pvisor spawn has no bind-mount or socket option we drive yet: refuse rather than run without them.
      if (task.mounts?.length || task.service) throw new Error('pvisor: extra mounts and a service endpoint are not supported by this adapter yet');
      const stage = stageOf(trial);
      // pVisor's own timeout is a backstop a little beyond ours, so the harness's kill decides and records the timeout.
      const timeoutSeconds = Math.ceil(trial.timeoutMs / 1000) + 5;
      const argv = [
        cli, 'spawn', '--no-agent-defaults', '--overlaynet', 'off', '--stdio', 'inherit',
        '--timeout', `${timeoutSeconds}s`, '--stage', stage,
        ...(mode === 'vm' ? ['--executor', 'vm'] : []),
        ...(trial.controls.memoryMiB ? ['--memory', `${trial.controls.memoryMiB}MiB`] : []),
        '--', ...task.argv,
      ];
      return startTrial({
        argv,
        controls: launchControls(trial),
        env: task.env,
        cwd: trial.baselineWorkspace,
        stdin: task.stdin,
        timeoutMs: trial.timeoutMs,
        classifyExit: (info) => {
          if (info.timedOut) return undefined;
          const read = readRunBundle(stage);
          if ('error' in read) return { category: 'recording_failed', reason: read.error };
          return auditRunBundle(read.bundle, mode) ?? undefined;
        },
      });
    },
    async collect(trial): Promise<CandidateFiles> {
      const upper = join(stageOf(trial), 'upper');
      return {
        changed: pvisorDeletions(listUpperLayer(upper, trial.baselineWorkspace)),
        read: async (relativePath) => readFile(join(upper, relativePath)).catch(() => null),
        facts: { pvisor_stage: stageOf(trial), pvisor_executor: mode },
      };
    },
    async finishTrial() {},
    async teardown() {},
  };
}

/**
 * pVisor's rootless stage cannot make 0:0 character devices: it marks a deleted path with an empty
 * AUFS-style `.wh.<name>` file beside it (seen in its upper/ after `rm`). Those read as deletions.
 */
export function pvisorDeletions(changed: readonly string[]): string[] {
  return changed
    .flatMap((rel) => {
      const slash = rel.lastIndexOf('/');
      const name = rel.slice(slash + 1);
      if (name === '.wh..wh..opq') return [];
      return name.startsWith('.wh.') ? [`${rel.slice(0, slash + 1)}${name.slice('.wh.'.length)} (deleted)`] : [rel];
    })
    .sort();
}
