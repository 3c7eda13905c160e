/**
 * The generated manifest, validated against the Kubernetes object types of @kubernetes/client-node:
 * each document is deserialized into its model (V1ConfigMap, V1Job) with the client's
 * ObjectSerializer and serialized back; a field the API types do not know (misspelled, misplaced)
 * would be dropped on the way, so "nothing lost" is checked by deep equality, then the fields a
 * Job needs are asserted on the typed objects.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { V1ConfigMap, V1Job } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const TYPES: Record<string, string> = { 'v1/ConfigMap': 'V1ConfigMap', 'batch/v1/Job': 'V1Job' };

async function manifest(args: string[]): Promise<{ raw: Record<string, unknown>[]; typed: (V1ConfigMap | V1Job)[] }> {
  const out = join(tempDir('sandbench-manifest-'), 'job.yaml');
  const result = await sandbench(['fleet', 'manifest', ...args, '--out', out]);
  expect(result.code, result.stderr).toBe(0);
  const raw = parseAllDocuments(readFileSync(out, 'utf8')).map((doc) => doc.toJS() as Record<string, unknown>);
  const typed = raw.map((doc) => {
    const type = TYPES[`${doc.apiVersion}/${doc.kind}`];
    expect(type, `${doc.apiVersion} ${doc.kind}`).toBeDefined();
    const object = ObjectSerializer.deserialize(doc, type!, '');
    // Round trip through the API types: every field we wrote must be a field Kubernetes knows.
    expect(ObjectSerializer.serialize(object, type!, '')).toEqual(doc);
    return object;
  });
  return { raw, typed };
}

describe('fleet manifest: staged + host, unprivileged', () => {
  let configMap: V1ConfigMap;
  let job: V1Job;
  beforeAll(async () => {
    const { typed } = await manifest(['test/fleet/fleet-small.yaml', '--shards', '3', '--image', 'registry.example.com/sandbench:0.1.0', '--node-selector', 'pool=bench', '--results-pvc', 'bench-results']);
    expect(typed).toHaveLength(2);
    expect(typed[0]).toBeInstanceOf(V1ConfigMap);
    expect(typed[1]).toBeInstanceOf(V1Job);
    [configMap, job] = typed as [V1ConfigMap, V1Job];
  });

  it('is an Indexed Job with N completions, all in parallel, retried per index', () => {
    expect(job.apiVersion).toBe('batch/v1');
    expect(job.metadata?.name).toBe('sandbench-fleet-small');
    expect(job.spec?.completionMode).toBe('Indexed');
    expect(job.spec?.completions).toBe(3);
    expect(job.spec?.parallelism).toBe(3);
    expect(job.spec?.backoffLimitPerIndex).toBe(2);
    expect(job.spec?.podReplacementPolicy).toBe('Failed');
    expect(job.spec?.template.spec?.restartPolicy).toBe('Never');
    expect(job.spec?.template.spec?.nodeSelector).toEqual({ pool: 'bench' });
  });

  it('puts every shard on a distinct node (required anti-affinity on its own pod labels)', () => {
    const terms = job.spec!.template.spec!.affinity!.podAntiAffinity!.requiredDuringSchedulingIgnoredDuringExecution!;
    expect(terms).toHaveLength(1);
    expect(terms[0]!.topologyKey).toBe('kubernetes.io/hostname');
    const selector = terms[0]!.labelSelector!.matchLabels!;
    const podLabels = job.spec!.template.metadata!.labels!;
    for (const [key, value] of Object.entries(selector)) expect(podLabels[key]).toBe(value);
  });

  it('runs shard $JOB_COMPLETION_INDEX of N into the results volume, resuming a retried shard', () => {
    const container = job.spec!.template.spec!.containers[0]!;
    expect(container.name).toBe('sandbench');
    expect(container.image).toBe('registry.example.com/sandbench:0.1.0');
    const script = container.args!.join('\n');
    expect(script).toContain('exec sandbench run /etc/sandbench/fleet-small.yaml --shard "${JOB_COMPLETION_INDEX}/3" --require-all --out "$out"');
    expect(script).toContain('out="/results/sandbench-fleet-small/shard-${JOB_COMPLETION_INDEX}"');
    expect(script).toContain('sandbench run --resume "$out"');
    const nodeName = container.env!.find((e) => e.name === 'SANDBENCH_NODE_NAME')!;
    expect(nodeName.valueFrom?.fieldRef?.fieldPath).toBe('spec.nodeName');
    const volumes = new Map(job.spec!.template.spec!.volumes!.map((v) => [v.name, v]));
    for (const mount of container.volumeMounts!) expect(volumes.has(mount.name), mount.name).toBe(true);
    expect(volumes.get('results')!.persistentVolumeClaim!.claimName).toBe('bench-results');
    expect(volumes.get('spec')!.configMap!.name).toBe(configMap.metadata!.name);
  });

  it('ships the spec byte for byte in the ConfigMap', () => {
    expect(configMap.data!['fleet-small.yaml']).toBe(readFileSync('test/fleet/fleet-small.yaml', 'utf8'));
  });

  it('grants staged its namespaces without full privilege', () => {
    const context = job.spec!.template.spec!.containers[0]!.securityContext!;
    expect(context.privileged).toBeUndefined();
    expect(context.capabilities?.add).toEqual(['SYS_ADMIN']);
    expect(context.seccompProfile?.type).toBe('Unconfined');
  });
});

describe('fleet manifest: container and VM backends', { timeout: 300_000 }, () => {
  it('requires --privileged for podman/docker/cgroup budgets, naming the option (exit 2)', async () => {
    const result = await sandbench(['fleet', 'manifest', 'experiments/specs/shell-ready.yaml', '--shards', '3', '--image', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/podman: .*add --privileged/);
  });

  it('with --privileged: a privileged container, /dev/kvm from the node, storage for nested engines', async () => {
    const { typed } = await manifest(['experiments/specs/shell-ready.yaml', '--shards', '4', '--image', 'x', '--privileged', '--parallelism', '2']);
    const job = typed[1] as V1Job;
    expect(job.spec?.completions).toBe(4);
    expect(job.spec?.parallelism).toBe(2);
    const pod = job.spec!.template.spec!;
    expect(pod.containers[0]!.securityContext?.privileged).toBe(true);
    expect(pod.volumes!.find((v) => v.name === 'kvm')!.hostPath).toEqual({ path: '/dev/kvm', type: 'CharDevice' });
    expect(pod.containers[0]!.volumeMounts!.map((m) => m.mountPath)).toEqual(expect.arrayContaining(['/dev/kvm', '/var/lib/containers', '/var/lib/docker']));
  });

  it('refuses more shards than blocks (exit 2)', async () => {
    const result = await sandbench(['fleet', 'manifest', 'test/fleet/fleet-small.yaml', '--shards', '7', '--image', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--shards 7: .* plans 6 blocks/);
  });
});
