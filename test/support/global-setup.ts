import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { stateDir } from '../../harness/state-dir.ts';

export default async function setup(): Promise<void> {
  await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}), (message) => process.stderr.write(`global-setup: ${message}\n`));
}
