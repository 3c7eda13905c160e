/**
 * Slurm batch scripts that run one campaign as N shards: a job array (task i = `sandbench run
 * <spec> --shard i/N`, one exclusive node each) and a merge job that the submitter makes depend on
 * the whole array (`--dependency=afterok:<array> --kill-on-invalid-dep=yes`, harness/fleet/slurm-submit.ts).
 * Scheduling, retries and node choice are Slurm's own. Pure: options in, script text out.
 * Slurm facts relied on (22.05): data/slurm/one-node-cluster.md.
 */
import { UserError } from '../errors.ts';

export interface SlurmScriptOptions {
  /** Slurm job name (the merge job gets "<name>-merge"). */
  name: string;
  shards: number;
  /** Absolute path of the spec copy the tasks read (beside the results, so edits after submit cannot change the plan). */
  specFile: string;
  /** Absolute results directory on a filesystem every node mounts: shard-<i>/, merged/, logs/. */
  resultsDir: string;
  /** The sandbench command as argv, e.g. [node, /path/bin/sandbench.mjs]. */
  sandbench: readonly string[];
  partition?: string;
  /** Whole nodes per shard (the default): no co-tenant job disturbs the timings. */
  exclusive: boolean;
  /** Slurm time limit per task (--time), e.g. "2:00:00". */
  time?: string;
  /** The spec's controls.cpus, parsed: trials are pinned to exactly these logical CPUs. */
  pinnedCpus?: readonly number[];
  /** SANDBENCH_HOME on the nodes (image cache, scratch); default: each node's own ~/.cache/sandbench. */
  stateDir?: string;
}

export interface SlurmScripts {
  /** The job array: one task per shard. */
  shards: string;
  /** The merge of every shard bundle into <results>/merged. */
  merge: string;
}

export const LOG_DIR = 'logs';
export const MERGED_DIR = 'merged';
export const shardDirName = (index: number) => `shard-${index}`;

/** POSIX single-quoted word. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Slurm job names: kept to characters every shell, log file name and squeue column takes. */
export function slurmJobName(specName: string): string {
  const slug = specName.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  return `sandbench-${slug || 'campaign'}`;
}

// Slurm's --time forms: minutes, m:s, h:m:s, d-h, d-h:m, d-h:m:s, or unlimited.
const TIME = /^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+|\d+-\d+:\d{1,2}|\d+-\d+:\d{1,2}:\d{1,2}|UNLIMITED|unlimited|INFINITE|infinite)$/;

function validate(options: SlurmScriptOptions): void {
  if (!Number.isInteger(options.shards) || options.shards < 1) throw new Error(`slurmScripts: shards must be ≥ 1, got ${options.shards}`);
  if (!options.resultsDir.startsWith('/') || !options.specFile.startsWith('/')) throw new Error('slurmScripts: resultsDir and specFile must be absolute (the job runs in another directory)');
  if (/[\s%]/.test(options.resultsDir)) throw new UserError(`--results ${options.resultsDir}: Slurm's --output path cannot hold spaces or '%'; choose a plain path`);
  if (options.time !== undefined && !TIME.test(options.time)) throw new UserError(`--time ${options.time}: expected a Slurm time limit such as 90 (minutes), 1:30:00 or 2-00:00:00`);
  if (options.partition !== undefined && !/^[A-Za-z0-9_.,-]+$/.test(options.partition)) throw new UserError(`--partition ${options.partition}: expected a partition name (letters, digits, '_', '.', '-'; comma-separated for several)`);
  if (options.pinnedCpus && options.pinnedCpus.length > 0 && !options.exclusive) {
    // Slurm picks which CPUs a shared job gets; the harness would pin trials to CPUs another job owns.
    throw new UserError(`--no-exclusive: the spec's controls.cpus pins every trial to CPUs ${options.pinnedCpus.join(',')}, which on a shared node Slurm may give to another job; keep --exclusive, or drop controls.cpus from the spec`);
  }
}

/** #SBATCH lines both jobs share. */
function commonDirectives(options: SlurmScriptOptions): string[] {
  return [
    ...(options.partition ? [`#SBATCH --partition=${options.partition}`] : []),
    ...(options.time ? [`#SBATCH --time=${options.time}`] : []),
    '#SBATCH --nodes=1',
    '#SBATCH --ntasks=1',
    `#SBATCH --chdir=${options.resultsDir}`,
    // A requeued task appends to its log instead of truncating the first attempt's.
    '#SBATCH --open-mode=append',
  ];
}

function resourceDirectives(options: SlurmScriptOptions): string[] {
  const lines: string[] = [];
  if (options.exclusive) {
    // The whole node, its memory included: nothing else runs beside a shard.
    lines.push('#SBATCH --exclusive', '#SBATCH --mem=0');
  }
  if (options.pinnedCpus && options.pinnedCpus.length > 0) {
    // controls.cpus names logical CPU ids: the node must have the highest one.
    lines.push(`#SBATCH --mincpus=${Math.max(...options.pinnedCpus) + 1}`);
  }
  return lines;
}

function preamble(options: SlurmScriptOptions): string[] {
  return [
    'set -eu',
    // The submitter's environment is exported to the job (sbatch's default): a Kubernetes node name
    // from it would mislabel the host. The Slurm node names the host here (harness/fleet/host-identity.ts).
    'unset SANDBENCH_NODE_NAME',
    ...(options.stateDir ? [`export SANDBENCH_HOME=${shellQuote(options.stateDir)}`] : []),
    `results=${shellQuote(options.resultsDir)}`,
    'stamp() { date -u +%Y%m%dT%H%M%SZ; }',
  ];
}

function shardScript(options: SlurmScriptOptions): string {
  const sandbench = options.sandbench.map(shellQuote).join(' ');
  const n = options.shards;
  return [
    '#!/bin/sh',
    `# sandbench fleet slurm: ${options.name}, ${n} shard(s) as a job array; written by \`sandbench fleet slurm\` (docs/fleet.md).`,
    `#SBATCH --job-name=${options.name}`,
    `#SBATCH --array=0-${n - 1}`,
    ...resourceDirectives(options),
    ...commonDirectives(options),
    // %A_%a: the last task keeps the array's job id and the others get new ones, so %j would not name the shard.
    `#SBATCH --output=${options.resultsDir}/${LOG_DIR}/${options.name}-%A_%a.out`,
    // Requeue after a node failure or `scontrol requeue` (Slurm's default, said explicitly).
    '#SBATCH --requeue',
    ...preamble(options),
    'i="${SLURM_ARRAY_TASK_ID:?run this script with sbatch: it is a job array}"',
    `[ "$i" -lt ${n} ] || { echo "sandbench fleet: array task $i is outside shards 0..${n - 1}" >&2; exit 2; }`,
    'node="${SLURMD_NODENAME:-$(hostname -s)}"',
    'out="$results/shard-$i"',
    `echo "sandbench fleet: shard $i/${n} on node $node (job \${SLURM_ARRAY_JOB_ID:-?}_$i = \${SLURM_JOB_ID:-?}, restart \${SLURM_RESTART_COUNT:-0})" >&2`,
    'if [ -f "$out/plan.json" ]; then',
    // A shard's trials must all come from one host (host is the blocking factor): resume only where it started.
    '  if grep -qF "\\"node_name\\": \\"$node\\"" "$out/plan.json"; then',
    `    exec ${sandbench} run --resume "$out"`,
    '  fi',
    '  aside="$out.partial-$(stamp)"',
    '  echo "sandbench fleet: shard $i was started on another node; its bundle moves to $aside and the shard starts over on $node (pin a requeue with: scontrol update JobId=<id> NodeList=<first node>)" >&2',
    '  mv "$out" "$aside"',
    'elif [ -e "$out" ]; then',
    // Killed before it wrote its plan: nothing was measured; keep it for inspection anyway.
    '  mv "$out" "$out.partial-$(stamp)"',
    'fi',
    `exec ${sandbench} run ${shellQuote(options.specFile)} --shard "$i/${n}" --require-all --out "$out"`,
    '',
  ].join('\n');
}

function mergeScript(options: SlurmScriptOptions): string {
  const sandbench = options.sandbench.map(shellQuote).join(' ');
  const shards = Array.from({ length: options.shards }, (_, i) => `"$results/${shardDirName(i)}"`).join(' ');
  return [
    '#!/bin/sh',
    `# sandbench fleet slurm: merge of ${options.name}'s ${options.shards} shard bundle(s); submit after the array with`,
    '#   sbatch --dependency=afterok:<array job id> --kill-on-invalid-dep=yes <this file>',
    `#SBATCH --job-name=${options.name}-merge`,
    // Said here too, so a merge resubmitted by hand is cancelled rather than left pending forever.
    '#SBATCH --kill-on-invalid-dep=yes',
    ...commonDirectives(options),
    `#SBATCH --output=${options.resultsDir}/${LOG_DIR}/${options.name}-merge-%j.out`,
    ...preamble(options),
    `merged="$results/${MERGED_DIR}"`,
    // merge writes only into a new or empty directory; an earlier attempt's output is kept, not overwritten.
    'if [ -d "$merged" ] && [ -n "$(ls -A "$merged")" ]; then mv "$merged" "$merged.previous-$(stamp)"; fi',
    `exec ${sandbench} merge ${shards} --out "$merged"`,
    '',
  ].join('\n');
}

export function slurmScripts(options: SlurmScriptOptions): SlurmScripts {
  validate(options);
  return { shards: shardScript(options), merge: mergeScript(options) };
}
