/**
 * `doctor --json` renders real probes through doctorJson; DoctorJsonSchema must accept them. The
 * full command probes every backend (tens of seconds, VMs boot a test guest), so this renders the
 * host facts, the host and staged probes and the CRIU probe exactly as cli/commands/doctor.ts does.
 */
import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../executors/registry.ts';
import { probeCriu } from '../../executors/checkpoint/criu.ts';
import { collectHostFacts } from '../../harness/provenance/host-facts.ts';
import { DoctorJsonSchema, doctorJson, jsonDocument } from '../../reports/json/index.ts';

describe('doctor --json', () => {
  it('is one document DoctorJsonSchema accepts, with schema_version and one entry per probed backend', async () => {
    const host = await collectHostFacts();
    const probes = [];
    for (const backend of ['host', 'staged'] as const) probes.push(await createExecutor(backend, null)!.probe());
    const criu = await probeCriu();
    const text = jsonDocument(doctorJson({ host: { ...host }, backends: probes, criu: { ...criu } }));
    const json = DoctorJsonSchema.parse(JSON.parse(text));
    expect(json.schema_version).toBe(1);
    expect(json.command).toBe('doctor');
    expect(json.backends.map((b) => b.backend)).toEqual(['host', 'staged']);
    expect(json.backends[0]!.available).toBe(true);
    expect(json.host.cores).toBeGreaterThan(0);
    // A wrong shape is refused: the schema is a contract, not a pass-through.
    expect(DoctorJsonSchema.safeParse({ ...json, backends: [{ backend: 'host' }] }).success).toBe(false);
  });
});
