/**
 * The generic adapter behind a spec-declared template backend: it supplies what every sandbox
 * needs and a CLI cannot — the task image as a rootfs directory, the staged workspace (timed apart),
 * the native launcher's timing path, run-id naming `clean` finds, and the identity recorded in
 * environment.json (the probe's output and the sha256 of the sandbox binary) — and runs the
 * declared argv templates for the rest.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { execa } from 'execa';
import type { ExecutorImplementation, ExitInfo, ProbeResult, RunContext, RunningTrial, SandboxMount, ServiceEndpoint, TaskCommand, TrialContext } from '../../harness/contracts/executor.ts';
import { fileSha256 } from '../../harness/provenance/build-identity.ts';
import type { TemplateBackendDeclaration } from '../../harness/spec/backend-declaration.ts';
import { SANDBOX_PATH } from '../launch-prefix.ts';
import { launchControls } from '../launch/launch-controls.ts';
import { rewriteTargets, serviceEnv, serviceSocketTarget, validateExtras } from '../sandbox-extras.ts';
import { startTrial } from '../spawn-trial.ts';
import { expandTemplate, type TemplateValues } from '../../harness/spec/template-argv.ts';
import { collectTemplateWorkspace, releaseTemplateWorkspace, stageTemplateWorkspace, workspaceDirs } from './template-workspace.ts';

/** The sandbox name a template launch gets as {name}: it holds the run id, so `clean` can tell whose it is. */
export function templateSandboxName(runId: string, trialId: string): string {
  return `sandbench-${runId}-${trialId}`.replace(/[^A-Za-z0-9_.-]/g, '-');
}

/** {short_name}: a hostname-safe name, unique per run and trial (sandboxes such as nspawn cap names at 64 characters). */
export function templateShortName(runId: string, trialId: string): string {
  return `sb-${createHash('sha256').update(`${runId}/${trialId}`).digest('hex').slice(0, 12)}`;
}

/** argv[0] as a file: absolute, or found on PATH; null when it is nowhere. */
export function resolveBinary(command: string, path = process.env.PATH ?? SANDBOX_PATH): string | null {
  const candidates = isAbsolute(command) || command.includes('/') ? [command] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Where the task finds what the harness hands it (`template.paths`): at the sandbox's own paths, or,
 * in a sandbox that shows the host's filesystem, at the host paths — the service socket where it
 * listens, a tool layer at its source, with argv words and env values naming a mount target
 * rewritten to it, as the host backend does.
 */
interface PathView {
  workdir: string;
  mountTarget(mount: SandboxMount): string;
  serviceTarget(service: ServiceEndpoint): string;
  rewrite(value: string, mounts: readonly SandboxMount[]): string;
}

function pathView(template: TemplateBackendDeclaration['template']): PathView {
  if (template.paths === 'host') {
    return { workdir: template.workdir ?? '{workspace}', mountTarget: (mount) => mount.source, serviceTarget: (service) => service.socketPath, rewrite: rewriteTargets };
  }
  return { workdir: template.workdir ?? '/workspace', mountTarget: (mount) => mount.target, serviceTarget: serviceSocketTarget, rewrite: (value) => value };
}

/** The task argv run inside the sandbox: cd to the workspace, a clean environment, then exec. */
function taskWords(task: TaskCommand, workdir: string, env: Record<string, string>): string[] {
  return ['/usr/bin/env', '-i', ...Object.entries(env).map(([key, value]) => `${key}=${value}`), '/bin/sh', '-c', 'cd "$0" && exec "$@"', workdir, ...task.argv];
}

export function createTemplateExecutor(name: string, declaration: TemplateBackendDeclaration, variant: string | null): ExecutorImplementation {
  const template = declaration.template;
  const view = pathView(template);
  const field = (key: string) => `backends.${name}.template.${key}`;
  const hostEnv = { PATH: process.env.PATH ?? SANDBOX_PATH, ...template.env };
  let rootfs: string | null = null;
  let runId = '';
  const run = (key: string, argv: readonly string[], values: TemplateValues = {}) => {
    const words = expandTemplate(field(key), argv, values);
    return execa(words[0]!, words.slice(1), { reject: false, env: hostEnv, timeout: 120_000 });
  };
  const trialValues = (trial: TrialContext): TemplateValues => {
    const dirs = workspaceDirs(trial);
    return {
      rootfs: rootfs ?? '',
      workspace: dirs.workspace,
      baseline: trial.baselineWorkspace,
      upper: dirs.upper,
      work: dirs.work,
      cpus: trial.controls.cpus ?? '',
      memory_mib: trial.controls.memoryMiB === null ? '' : String(trial.controls.memoryMiB),
      name: templateSandboxName(runId, trial.trialId),
      short_name: templateShortName(runId, trial.trialId),
      run_id: runId,
      trial_id: trial.trialId,
      trial_dir: trial.trialDir,
    };
  };
  const extrasWords = (task: TaskCommand, values: TemplateValues): { mounts: string[]; service: string[] } => {
    const mounts = (task.mounts ?? []).flatMap((mount) => {
      if (!template.mount) throw new Error(`${field('mount')} is not declared: this backend cannot show the task's read-only tool layers (declare e.g. mount: ['--bind-ro={source}:{target}'])`);
      return expandTemplate(field('mount'), template.mount, { ...values, source: mount.source, target: view.mountTarget(mount) });
    });
    if (task.service && !template.service) throw new Error(`${field('service')} is not declared: this backend cannot hand the task its service socket (declare e.g. service: ['--bind={socket}:{target}'])`);
    const service = task.service && template.service ? expandTemplate(field('service'), template.service, { ...values, socket: task.service.socketPath, target: view.serviceTarget(task.service) }) : [];
    return { mounts, service };
  };

  return {
    backend: name,
    variant,
    async probe(): Promise<ProbeResult> {
      const command = template.probe[0]!;
      const binary = resolveBinary(command, hostEnv.PATH);
      if (!binary) return { backend: name, available: false, version: null, details: {}, reason: `${field('probe')}: "${command}" is not installed or not on PATH`, fix: `install it, or give its absolute path in ${field('probe')}` };
      const launchBinary = resolveBinary(template.launch[0]!, hostEnv.PATH);
      if (!launchBinary) return { backend: name, available: false, version: null, details: {}, reason: `${field('launch')}: "${template.launch[0]}" is not installed or not on PATH`, fix: `install it, or give its absolute path in ${field('launch')}` };
      const result = await run('probe', template.probe);
      const output = `${result.stdout}\n${result.stderr}`.trim();
      if (result.exitCode !== 0) return { backend: name, available: false, version: null, details: {}, reason: `${field('probe')} exited ${result.exitCode}: ${output.split('\n')[0] ?? ''}`, fix: `make \`${template.probe.join(' ')}\` succeed on this host` };
      return {
        backend: name,
        available: true,
        version: output.split('\n')[0] ?? command,
        details: { template_binary: launchBinary, template_binary_sha256: `sha256:${fileSha256(launchBinary)}`, template_staging: template.staging, template_paths: template.paths, template_launch: template.launch.join(' ') },
      };
    },
    async prepare(context: RunContext) {
      rootfs = context.image.rootfsDir;
      runId = context.runId;
      if (template.prepare) {
        const result = await run('prepare', template.prepare, { rootfs, run_id: runId });
        if (result.exitCode !== 0) throw new Error(`${field('prepare')} exited ${result.exitCode}: ${result.stderr.trim().split('\n')[0] ?? ''}`);
      }
    },
    async stageWorkspace(trial) {
      await stageTemplateWorkspace(template.staging, trial);
      return { hostPath: trial.baselineWorkspace, claimsStaging: true };
    },
    async launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial> {
      if (rootfs === null) throw new Error(`backend ${name}: prepare() was not called`);
      validateExtras(task);
      const values = trialValues(trial);
      const workdir = expandTemplate(field('workdir'), [view.workdir], values)[0]!;
      const mounts = task.mounts ?? [];
      const service = task.service ? serviceEnv(task.service, { socket: view.serviceTarget(task.service) }) : {};
      const env = Object.fromEntries(Object.entries({ PATH: SANDBOX_PATH, HOME: '/tmp', LANG: 'C.UTF-8', ...task.env, ...service }).map(([key, value]) => [key, view.rewrite(value, mounts)]));
      const words = { ...task, argv: task.argv.map((word) => view.rewrite(word, mounts)) };
      const argv = expandTemplate(field('launch'), template.launch, { ...values, ...extrasWords(task, values), argv: taskWords(words, workdir, env) });
      let silentTooLong = false;
      const running = await startTrial({
        argv,
        controls: launchControls(trial),
        env: hostEnv,
        clearEnv: true,
        stdin: task.stdin,
        timeoutMs: trial.timeoutMs,
        onKill: async () => void (template.finish ? await run('finish', template.finish, values) : undefined),
        // A launch whose task never speaks is the template's failure, not the task's: name the field.
        classifyExit: (info: ExitInfo, lines): ExitInfo['infraFailure'] =>
          lines.length === 0 && (silentTooLong || info.timedOut || info.exitCode !== 0)
            ? { category: 'setup_failed', reason: `${field('launch')} printed nothing${silentTooLong ? ` within ready_timeout` : ''} (exit ${info.exitCode ?? info.signal}): does it run {argv} so the task's output reaches the harness?` }
            : undefined,
      });
      if (template.ready_timeout !== undefined) {
        const timer = setTimeout(() => {
          if (running.lines.length > 0) return;
          silentTooLong = true;
          void running.kill(`${field('ready_timeout')}: no output within ${template.ready_timeout} ms`);
        }, template.ready_timeout);
        running.onLine(() => clearTimeout(timer));
        void running.exit.finally(() => clearTimeout(timer));
      }
      return running;
    },
    async collect(trial) {
      return collectTemplateWorkspace(template.staging, trial);
    },
    async finishTrial(trial) {
      await releaseTemplateWorkspace(template.staging, trial);
      if (template.finish) await run('finish', template.finish, trialValues(trial)).catch(() => undefined);
    },
    async teardown() {
      if (template.teardown) await run('teardown', template.teardown, { rootfs: rootfs ?? '', run_id: runId }).catch(() => undefined);
    },
  };
}
