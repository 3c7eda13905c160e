import type { Command } from 'commander';
import { BUILTIN_CATALOG, createExecutor } from '../../executors/registry.ts';
import { collectHostFacts } from '../../harness/provenance/host-facts.ts';
import { criuDoctorLine, probeCriu } from '../../executors/checkpoint/criu.ts';
import { doctorJson, jsonDocument } from '../../reports/json/index.ts';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('One line per backend: available or not, version, and the reason and fix when not')
    .option('--json', 'print the probe results as one JSON document on stdout (DoctorJsonSchema: host facts, one probe per backend, CRIU)')
    .action(async (flags: { json?: boolean }) => {
      const host = await collectHostFacts();
      const probes = [];
      for (const backend of BUILTIN_CATALOG.names) {
        const executor = createExecutor(backend, null);
        probes.push(
          executor
            ? await executor.probe().catch((error: unknown) => ({ backend, available: false, version: null, details: {}, reason: `probe crashed: ${error}` }))
            : { backend, available: false, version: null, details: {}, reason: 'no adapter in this build' },
        );
      }
      const criu = await probeCriu();
      if (flags.json) {
        process.stdout.write(jsonDocument(doctorJson({ host: { ...host }, backends: probes, criu: { ...criu } })));
        return;
      }
      process.stdout.write(`host: ${host.cpu_model}, ${host.cores} cores, kernel ${host.kernel}, cgroup ${host.cgroup}, ${host.kvm_device ? '/dev/kvm present (the qemu lines say whether guests run under it)' : 'no /dev/kvm (VMs run under TCG)'}\n`);
      for (const probe of probes) {
        const details = Object.entries(probe.details).map(([key, value]) => `${key}=${value}`).join(' ');
        const line = probe.available
          ? `ok    ${probe.backend.padEnd(13)} ${probe.version ?? ''}${details ? `  ${details}` : ''}`
          : `--    ${probe.backend.padEnd(13)} unavailable: ${probe.reason ?? 'unknown'}${'fix' in probe && probe.fix ? ` — fix: ${probe.fix}` : ''}`;
        process.stdout.write(`${line}\n`);
      }
      process.stdout.write(`${criuDoctorLine(criu)}\n`);
    });
}
