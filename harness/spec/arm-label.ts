/**
 * The one way an arm is named everywhere (plan, journal, CSVs, --arms): its own `label` when it has
 * one, else `backend` or `backend:variant` (every bundle written before labels reads this way). A
 * label is independent of the variant (the agent, for the rollout kind) and of the build, so two
 * configurations of one backend — podman with crun and with runc — are two arms of one run.
 */
import { basename, extname } from 'node:path';

/** Labels go into trial ids and file names: lower-case letters, digits, dots, dashes, underscores. */
export const ARM_LABEL_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

export function armLabel(arm: { readonly backend: string; readonly variant?: string | null; readonly label?: string | null }): string {
  if (arm.label) return arm.label;
  return arm.variant ? `${arm.backend}:${arm.variant}` : arm.backend;
}

/**
 * The label an arm gets when the spec gives none, or null when it is the legacy `backend[:variant]`:
 * a build runtime names itself when no variant names the arm (`podman` with runtime crun →
 * `podman-crun`), so two arms of one backend that differ only in runtime stay apart.
 */
export function defaultArmLabel(arm: { readonly backend: string; readonly variant?: string | null; readonly build?: { readonly runtime?: string } }): string | null {
  if (arm.variant || !arm.build?.runtime) return null;
  const runtime = basename(arm.build.runtime, extname(arm.build.runtime)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  return `${arm.backend}-${runtime}`;
}
