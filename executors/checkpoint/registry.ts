/** Backend → checkpoint mechanism, from each backend's descriptor. A backend without one has no checkpoint arm (the kind says so). */
import type { CheckpointMechanism } from './mechanism.ts';
import { BUILTIN_CATALOG } from '../registry.ts';

export function createCheckpointMechanism(backend: string, variant: string | null): CheckpointMechanism | null {
  return BUILTIN_CATALOG.get(backend)?.checkpoint?.(variant) ?? null;
}
