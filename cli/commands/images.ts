import type { Command } from 'commander';
import { ensureTaskImage, verifyTaskImage } from '../../harness/image/ensure-image.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { UserError } from '../../harness/errors.ts';

export function registerImages(program: Command): void {
  const images = program.command('images').description('The task image every backend runs');
  images
    .command('build')
    .description('Build (or reuse) the task image from Debian packages: a deterministic tar named by its sha256')
    .option('--spec <file>', 'take the image section from this spec (default: python3, git, busybox on bookworm)')
    .option('--verify', 're-hash the cached tar and rebuild it when it does not match')
    .action(async (flags: { spec?: string; verify?: boolean }) => {
      const request = flags.spec ? (await import('../../experiments/registry.ts')).loadKindSpec(flags.spec).spec.image : ImageSpecSchema.parse({});
      const log = (message: string) => process.stderr.write(`sandbench: ${message}\n`);
      let image = await ensureTaskImage(stateDir(), request, log);
      if (flags.verify && !(await verifyTaskImage(image))) {
        log(`cached image at ${image.dir} does not match its digest; rebuilding`);
        const { rmSync } = await import('node:fs');
        rmSync(image.dir, { recursive: true, force: true });
        image = await ensureTaskImage(stateDir(), request, log);
        if (!(await verifyTaskImage(image))) throw new UserError(`image ${image.dir}: rebuilt tar does not match its digest`, 1);
      }
      process.stdout.write(`${image.digest}\n${image.tarPath}\n`);
    });
}
