/**
 * The run-code load client's process entry (started by load-client.ts): reads the job file, runs the
 * closed loop, prints one RUN_CODE_CLIENT_RESULT line per request as it ends and one
 * RUN_CODE_CLIENT_DONE line with the process's own CPU time and wall time over the loop.
 */
import { readFileSync } from 'node:fs';
import { DONE_LINE, RESULT_LINE, runClosedLoop, type ClientUsage, type LoadJob } from './load-client.ts';

async function main(jobFile: string): Promise<void> {
  const job = JSON.parse(readFileSync(jobFile, 'utf8')) as LoadJob;
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  await runClosedLoop(job, (observation) => process.stdout.write(`${RESULT_LINE} ${JSON.stringify(observation)}\n`));
  const cpu = process.cpuUsage(cpuStart);
  const usage: ClientUsage = { pid: process.pid, wallMs: Number(process.hrtime.bigint() - wallStart) / 1e6, cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000, maxRssKib: process.resourceUsage().maxRSS };
  process.stdout.write(`${DONE_LINE} ${JSON.stringify(usage)}\n`);
}

main(process.argv[2]!).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
