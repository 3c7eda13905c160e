import type { Command } from 'commander';
import { UserError } from '../../harness/errors.ts';
import { parseDurationMs } from '../../harness/spec/units.ts';
import type { BackendConformance } from '../../executors/conformance/check-backend.ts';
import type { PropertyStatus } from '../../executors/conformance/properties.ts';
import type { ExecutorCatalog } from '../../executors/declared-backends.ts';

interface ConformanceFlags {
  spec?: string;
  backend: string[];
  timeout?: string;
  json?: boolean;
}

const DESCRIPTION =
  'Check backends against the conformance properties (ready marker and exit code, staging claim, isolation, cleanup, timeout, budget membership, service reachability, timing path): one pass/FAIL/n/a line per property with the reason; exit 0 when all pass, 1 when any fails';

const STATUS_WORD: Record<PropertyStatus, string> = { pass: 'pass', fail: 'FAIL', 'not-applicable': 'n/a' };

/**
 * The catalog and the backends to check: --backend names, else the spec's own (declared and armed),
 * else every built-in. `required`: those that must be available (named, or declared by the spec): a
 * sandbox being adopted that cannot even be probed fails the check; an absent built-in does not.
 */
async function chooseBackends(flags: ConformanceFlags): Promise<{ catalog: ExecutorCatalog; names: string[]; required: Set<string> }> {
  let catalog: ExecutorCatalog;
  let defaults: string[];
  let declared: string[] = [];
  if (flags.spec) {
    const [{ resolveGivenSpec }, { SPEC_KINDS }, { catalogForSpec }] = await Promise.all([import('../../harness/spec/given-spec.ts'), import('../../experiments/registry.ts'), import('../../executors/declared-backends.ts')]);
    const { spec } = resolveGivenSpec(flags.spec, {}, SPEC_KINDS);
    catalog = await catalogForSpec(spec);
    declared = Object.keys(spec.backends ?? {});
    const wanted = new Set([...declared, ...spec.arms.map((arm) => arm.backend)]);
    defaults = catalog.names.filter((name) => wanted.has(name));
  } else {
    catalog = (await import('../../executors/registry.ts')).BUILTIN_CATALOG;
    defaults = [...catalog.names];
  }
  for (const name of flags.backend) {
    if (!catalog.get(name)) throw new UserError(`--backend ${name}: no such backend${flags.spec ? ` in ${flags.spec}'s catalog` : ''}; expected one of ${catalog.names.join(', ')}`);
  }
  const names = flags.backend.length > 0 ? [...new Set(flags.backend)] : defaults;
  return { catalog, names, required: new Set(flags.backend.length > 0 ? names : declared) };
}

/** One line per property; an unavailable backend gets one `probe` line (FAIL when it was asked for, else n/a). */
function lines(report: BackendConformance, required: boolean): string[] {
  const backend = report.backend.padEnd(13);
  if (!report.probe.available) {
    return [`${(required ? 'FAIL' : 'n/a').padEnd(5)} ${backend} ${'probe'.padEnd(18)} unavailable: ${report.probe.reason ?? 'unknown'}${report.probe.fix ? ` — fix: ${report.probe.fix}` : ''}`];
  }
  const out = report.results.map((result) => `${STATUS_WORD[result.status].padEnd(5)} ${backend} ${result.property.padEnd(18)} ${result.reason}`);
  if (report.setupError) out.push(`FAIL  ${backend} ${'setup'.padEnd(18)} ${report.setupError}`);
  return out;
}

export function registerConformance(program: Command): void {
  program
    .command('conformance')
    .description(DESCRIPTION)
    .option('--spec <spec>', "check the backends of this spec's catalog (built in + its `backends:`); by default the ones it declares and its arms use")
    .option('--backend <name>', 'a backend to check (repeat for more); default every built-in backend, or the spec\'s own with --spec. A backend named here or declared by the spec that is unavailable fails the check', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--timeout <duration>', 'per-trial timeout, e.g. 30s (default 60s, 180s for VMs)')
    .option('--json', 'print one JSON document on stdout (ConformanceJsonSchema: each backend\'s probe and every property\'s verdict); progress stays on stderr')
    .action(async (flags: ConformanceFlags) => {
      const trialTimeoutMs = flags.timeout === undefined ? undefined : parseDurationMs(flags.timeout) ?? undefined;
      if (flags.timeout !== undefined && trialTimeoutMs === undefined) throw new UserError(`--timeout ${flags.timeout}: expected a positive duration such as "30s" or "500ms"`);
      const { catalog, names, required } = await chooseBackends(flags);
      if (names.length === 0) throw new UserError(`${flags.spec}: declares no backend and names none in its arms; give --backend <name>`);
      const [{ openConformanceRun }, { checkBackend, conforms }, { executorOf }, { conformanceJson }] = await Promise.all([
        import('../../executors/conformance/conformance-run.ts'),
        import('../../executors/conformance/check-backend.ts'),
        import('../../executors/registry.ts'),
        import('../../executors/conformance/conformance-json.ts'),
      ]);
      const log = (message: string) => process.stderr.write(`sandbench: ${message}\n`);
      const run = await openConformanceRun({ log });
      log(`conformance run ${run.context.runId}: ${names.join(', ')} (scratch ${run.root})`);
      const current: { teardown?: () => Promise<void> } = {};
      const onSignal = (signal: NodeJS.Signals) => {
        log(`${signal}: stopping — tearing down the backend in flight and releasing what the check started`);
        void (async () => {
          await current.teardown?.().catch(() => undefined);
          await run.dispose();
          process.exit(130);
        })();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const reports: BackendConformance[] = [];
      try {
        for (const name of names) {
          const executor = executorOf(catalog.get(name)!, null);
          current.teardown = () => executor.teardown();
          const report = await checkBackend(executor, run, { trialTimeoutMs, log });
          reports.push(report);
          if (!flags.json) process.stdout.write(`${lines(report, required.has(name)).join('\n')}\n`);
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        for (const failure of await run.dispose()) log(`cleanup: ${failure}`);
      }
      const passed = reports.every((report) => (report.probe.available ? conforms(report) : !required.has(report.backend)));
      if (flags.json) process.stdout.write(`${JSON.stringify(conformanceJson(run.context.runId, reports, passed), null, 2)}\n`);
      process.exitCode = passed ? 0 : 1;
    });
}
