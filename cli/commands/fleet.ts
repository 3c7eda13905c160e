import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { loadSpec } from '../../harness/spec/load-spec.ts';
import { EXPERIMENTS, SPEC_KINDS } from '../../experiments/registry.ts';
import { podNeeds } from '../../harness/fleet/backend-needs.ts';
import { buildJobManifest, jobName } from '../../harness/fleet/job-manifest.ts';
import { LOG_DIR, slurmJobName, slurmScripts } from '../../harness/fleet/slurm-script.ts';
import { mergeDependency, resubmittedMergeDependency, submitCampaign } from '../../harness/fleet/slurm-submit.ts';
import { parseCpuList } from '../../harness/controls/cpu-affinity.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { nonNegativeInt, positiveInt } from '../parse-options.ts';
import { UserError } from '../../harness/errors.ts';

/** The CLI entry point the Slurm tasks start (the checkout the submitter runs: nodes share it). */
const SANDBENCH_BIN = join(PROJECT_ROOT, 'bin', 'sandbench.mjs');

interface ManifestFlags {
  shards: number;
  image: string;
  nodeSelector: Record<string, string>;
  privileged?: boolean;
  resultsPvc: string;
  parallelism?: number;
  name?: string;
  namespace?: string;
  retries: number;
  out?: string;
}

function keyValue(value: string, previous: Record<string, string>): Record<string, string> {
  const match = /^([^=\s]+)=([^=\s]*)$/.exec(value);
  if (!match) throw new UserError(`--node-selector ${value}: expected key=value, e.g. --node-selector node.kubernetes.io/instance-type=m7i.2xlarge`);
  return { ...previous, [match[1]!]: match[2]! };
}

/**
 * The spec of a sharded campaign, checked for both engines: every shard gets at least one formal
 * block, and too few warmup blocks (some hosts start cold) are said before anything is scheduled.
 */
function loadCampaign(specPath: string, shards: number) {
  const loaded = loadSpec(specPath, SPEC_KINDS);
  const spec = loaded.spec;
  const experiment = EXPERIMENTS[spec.experiment]!;
  const plan = experiment.plan(spec);
  const formalBlocks = new Set(plan.trials.filter((t) => !t.warmup).map((t) => t.block)).size;
  if (shards > formalBlocks) throw new UserError(`--shards ${shards}: ${specPath} plans ${formalBlocks} blocks, so some shards would run nothing; use at most ${formalBlocks} shards or raise trials`);
  if (spec.warmups < shards) process.stderr.write(`sandbench: warning: ${spec.warmups} warmup block(s) for ${shards} shards — shards ≥ ${spec.warmups} start cold on their host; set warmups ≥ shards in the spec\n`);
  return { loaded, spec, experiment };
}

export function registerFleet(program: Command): void {
  const fleet = program.command('fleet').description('Run one campaign across a fleet of machines (Kubernetes Indexed Jobs or Slurm job arrays); docs/fleet.md');
  fleet
    .command('manifest')
    .description('Write the Kubernetes ConfigMap + Indexed Job that run <spec> as N shards on N distinct nodes (merge the results with sandbench merge)')
    .argument('<spec>', 'experiment spec (YAML); it is shipped to the pods in a ConfigMap')
    .requiredOption('--shards <n>', 'number of shards = pods = distinct nodes', positiveInt('--shards'))
    .requiredOption('--image <ref>', 'the sandbench container image (built from ./Containerfile), e.g. registry.example.com/sandbench:0.1.0')
    .option('--node-selector <key=value>', 'schedule only on nodes with this label (repeatable)', keyValue, {})
    .option('--privileged', 'run the pods privileged (needed by podman, docker, cgroup budgets; gives VMs /dev/kvm)')
    .option('--results-pvc <name>', 'ReadWriteMany PersistentVolumeClaim the shards write their bundles to', 'sandbench-results')
    .option('--parallelism <n>', 'pods running at once (default: all shards)', positiveInt('--parallelism'))
    .option('--name <name>', 'Job name (default sandbench-<spec name>)')
    .option('--namespace <ns>', 'namespace of the Job and ConfigMap')
    .option('--retries <n>', 'pod retries per shard; each retry resumes the shard', nonNegativeInt('--retries'), 2)
    .option('--out <file>', 'write the manifest here instead of stdout')
    .action((specPath: string, flags: ManifestFlags) => {
      const { loaded, spec, experiment } = loadCampaign(specPath, flags.shards);
      const name = flags.name ?? jobName(spec.name);
      if (!/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/.test(name)) throw new UserError(`--name ${name}: a Job name must be a DNS-1123 label of at most 52 characters (lower case, digits, '-')`);
      const needs = podNeeds(experiment.executorArms(spec).map((arm) => arm.backend), spec.controls, SPEC_KINDS.backends);
      const { configMap, job } = buildJobManifest({
        name,
        namespace: flags.namespace,
        shards: flags.shards,
        parallelism: Math.min(flags.parallelism ?? flags.shards, flags.shards),
        image: flags.image,
        specText: loaded.source,
        specFileName: basename(specPath).replace(/[^A-Za-z0-9._-]/g, '_'),
        nodeSelector: flags.nodeSelector,
        privileged: Boolean(flags.privileged),
        resultsPvc: flags.resultsPvc,
        needs,
        retriesPerShard: flags.retries,
      });
      // Literal blocks for the spec and the script, no anchors: what kubectl users read and diff.
      const yamlOptions = { aliasDuplicateObjects: false, lineWidth: 0, blockQuote: 'literal' } as const;
      const text = `${stringify(configMap, yamlOptions)}---\n${stringify(job, yamlOptions)}`;
      if (flags.out) writeFileSync(flags.out, text);
      else process.stdout.write(text);
    });
  registerSlurm(fleet);
}

interface SlurmFlags {
  shards: number;
  partition?: string;
  exclusive?: boolean;
  time?: string;
  results?: string;
  name?: string;
  stateDir?: string;
  command?: string;
  submit?: boolean;
}

/** The spec copy the tasks read: a results directory holding another campaign's spec is refused. */
function placeSpec(resultsDir: string, specPath: string, source: string): string {
  const copy = join(resultsDir, 'spec.yaml');
  if (existsSync(copy) && readFileSync(copy, 'utf8') !== source) {
    throw new UserError(`--results ${resultsDir}: it holds another campaign (its spec.yaml differs from ${specPath}); give a new --results directory (the same spec there resubmits and resumes its shards)`);
  }
  mkdirSync(join(resultsDir, LOG_DIR), { recursive: true });
  writeFileSync(copy, source);
  return copy;
}

function registerSlurm(fleet: Command): void {
  fleet
    .command('slurm')
    .description('Write the Slurm job array (one exclusive node per shard) and the dependent merge job that run <spec> as N shards; --submit submits both')
    .argument('<spec>', 'experiment spec (YAML); copied byte for byte into the results directory, which the tasks read')
    .requiredOption('--shards <n>', 'number of shards = array tasks', positiveInt('--shards'))
    .option('--partition <name>', 'Slurm partition (default: the cluster\'s default partition)')
    .option('--exclusive', 'one whole node per shard, memory included (the default)')
    .option('--no-exclusive', 'share nodes with other jobs (their load then enters the timings; refused with controls.cpus)')
    .option('--time <limit>', 'time limit per shard task, e.g. 2:00:00')
    .option('--results <dir>', 'results directory on a filesystem every node mounts (default runs/fleet-<spec name>)')
    .option('--name <name>', 'Slurm job name (default sandbench-<spec name>)')
    .option('--state-dir <dir>', 'SANDBENCH_HOME on the nodes: task image cache and scratch (default: each node\'s ~/.cache/sandbench)')
    .option('--command <cmd>', 'how nodes start sandbench (default: this node binary and checkout)')
    .option('--submit', 'submit the array and the merge job (sbatch) and print their job ids')
    .action(async (specPath: string, flags: SlurmFlags) => {
      const { loaded, spec, experiment } = loadCampaign(specPath, flags.shards);
      const warn = (message: string) => process.stderr.write(`sandbench: warning: ${message}\n`);
      const exclusive = flags.exclusive !== false;
      if (!exclusive) warn('--no-exclusive: other jobs may run on a shard\'s node at the same time, and their load enters its timings; keep nodes exclusive for measurements you publish');
      const needs = podNeeds(experiment.executorArms(spec).map((arm) => arm.backend), spec.controls, SPEC_KINDS.backends);
      const rootOnly = [...needs.privileged, ...needs.namespaces];
      if (rootOnly.length > 0 && process.getuid?.() !== 0) warn(`the tasks run as you (${process.env.USER ?? 'this user'}), not root: ${rootOnly.join('; ')} — these may need root on the nodes (docs/fleet.md, section 3, says what each backend needs under Slurm)`);
      const name = flags.name ?? slurmJobName(spec.name);
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new UserError(`--name ${name}: a Slurm job name here is 1–64 letters, digits, '_', '.', '-'`);
      const resultsDir = resolve(flags.results ?? join('runs', `fleet-${spec.name.replace(/[^A-Za-z0-9_.-]+/g, '-')}`));
      const command = flags.command ? flags.command.trim().split(/\s+/) : [process.execPath, SANDBENCH_BIN];
      const scripts = slurmScripts({
        name,
        shards: flags.shards,
        specFile: join(resultsDir, 'spec.yaml'),
        resultsDir,
        sandbench: command,
        partition: flags.partition,
        exclusive,
        time: flags.time,
        pinnedCpus: spec.controls.cpus === undefined ? undefined : parseCpuList(spec.controls.cpus),
        stateDir: flags.stateDir === undefined ? undefined : resolve(flags.stateDir),
      });
      placeSpec(resultsDir, specPath, loaded.source);
      const shardPath = join(resultsDir, 'shards.sbatch');
      const mergePath = join(resultsDir, 'merge.sbatch');
      writeFileSync(shardPath, scripts.shards, { mode: 0o755 });
      writeFileSync(mergePath, scripts.merge, { mode: 0o755 });
      process.stdout.write(`wrote ${shardPath} (array 0-${flags.shards - 1}) and ${mergePath}; results in ${resultsDir}\n`);
      if (!flags.submit) {
        process.stdout.write(`submit: array=$(sbatch --parsable ${shardPath}) && sbatch ${mergeDependency('$array').join(' ')} ${mergePath}\n`);
        return;
      }
      const submitted = await submitCampaign(shardPath, mergePath);
      process.stdout.write(`submitted: array job ${submitted.arrayJobId} (tasks ${submitted.arrayJobId}_0..${submitted.arrayJobId}_${flags.shards - 1}), merge job ${submitted.mergeJobId} after all of them\n`);
      process.stdout.write(`array_job=${submitted.arrayJobId} merge_job=${submitted.mergeJobId}\n`);
      process.stdout.write(`if a task fails or is cancelled, the merge job is cancelled: requeue the task (scontrol requeue ${submitted.arrayJobId}_<i>; it resumes its bundle), then merge again with: sbatch ${resubmittedMergeDependency(submitted.arrayJobId, flags.shards).join(' ')} ${mergePath}\n`);
    });
}
