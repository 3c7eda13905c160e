import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { stringify } from 'yaml';
import { loadSpec } from '../../harness/spec/load-spec.ts';
import { EXPERIMENTS } from '../../experiments/registry.ts';
import { podNeeds } from '../../harness/fleet/backend-needs.ts';
import { buildJobManifest, jobName } from '../../harness/fleet/job-manifest.ts';
import { nonNegativeInt, positiveInt } from '../parse-options.ts';
import { UserError } from '../../harness/errors.ts';

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

export function registerFleet(program: Command): void {
  const fleet = program.command('fleet').description('Run one campaign across a fleet of machines (Kubernetes Indexed Jobs); docs/fleet.md');
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
      const loaded = loadSpec(specPath);
      const spec = loaded.spec;
      const experiment = EXPERIMENTS[spec.experiment];
      if (!experiment) throw new UserError(`${specPath}: experiment: the "${spec.experiment}" kind is not available in this build`);
      const plan = experiment.plan(spec);
      const formalBlocks = new Set(plan.trials.filter((t) => !t.warmup).map((t) => t.block)).size;
      if (flags.shards > formalBlocks) throw new UserError(`--shards ${flags.shards}: ${specPath} plans ${formalBlocks} blocks, so some shards would run nothing; use at most ${formalBlocks} shards or raise trials`);
      if (spec.warmups < flags.shards) process.stderr.write(`sandbench: warning: ${spec.warmups} warmup block(s) for ${flags.shards} shards — shards ≥ ${spec.warmups} start cold on their host; set warmups ≥ shards in the spec\n`);
      const name = flags.name ?? jobName(spec.name);
      if (!/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/.test(name)) throw new UserError(`--name ${name}: a Job name must be a DNS-1123 label of at most 52 characters (lower case, digits, '-')`);
      const needs = podNeeds(experiment.executorArms(spec).map((arm) => arm.backend as never), spec.controls);
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
}
