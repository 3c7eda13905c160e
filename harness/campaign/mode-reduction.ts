/**
 * What a campaign mode leaves out of an entry's full protocol (its `quick:` overrides against the
 * full mode's), so an unmatched row that only --quick leaves out says so: "our n = 5 < 30 (--quick
 * runs 5 trials per arm; the full campaign 60)". Reads only the specs' generic fields (arms, trials).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { armLabel } from '../journal/trial-record.ts';
import type { CampaignEntry, CampaignModeName } from './campaign-list.ts';

export interface ModeReduction {
  /** How the mode is named in reasons ("--quick"). */
  mode: string;
  spec?: { ran: string; full: string };
  arms?: { ran: string[]; full: string[] };
  trials?: { ran: number; full: number | null };
  concurrency?: { ran: number[]; full: number[] | null };
  batches?: { ran: number; full: number | null };
}

export interface SpecBasics {
  arms: string[];
  trials: number | null;
}

/** A spec's arm labels and trials, or nothing when the file does not parse (the run reports that itself). */
export function specBasics(path: string): SpecBasics {
  try {
    const doc = parseYaml(readFileSync(path, 'utf8')) as { arms?: { backend?: unknown; variant?: unknown }[]; trials?: unknown };
    const arms = (doc.arms ?? []).filter((a) => typeof a?.backend === 'string').map((a) => armLabel({ backend: a.backend as string, variant: typeof a.variant === 'string' ? a.variant : null }));
    return { arms, trials: typeof doc.trials === 'number' ? doc.trials : null };
  } catch {
    return { arms: [], trials: null };
  }
}

/** The reduction of `mode` against the full mode, or null when the mode runs the full protocol. */
export function modeReduction(entry: CampaignEntry, mode: CampaignModeName): ModeReduction | null {
  if (mode === 'full') return null;
  const reduced = entry[mode];
  const full = entry.full;
  const fullSpec = specBasics(entry.specPaths.full);
  const ranSpec = entry.specPaths[mode] === entry.specPaths.full ? fullSpec : specBasics(entry.specPaths[mode]);
  const out: ModeReduction = { mode: `--${mode}` };
  if (entry.specPaths[mode] !== entry.specPaths.full) out.spec = { ran: reduced.spec ?? entry.specPaths[mode], full: full.spec ?? entry.spec };
  const fullArms = full.arms ?? fullSpec.arms;
  const ranArms = reduced.arms ?? ranSpec.arms;
  if (ranArms.length > 0 && fullArms.some((a) => !ranArms.includes(a))) out.arms = { ran: ranArms, full: fullArms };
  const fullTrials = full.trials ?? fullSpec.trials;
  const ranTrials = reduced.trials ?? ranSpec.trials;
  if (ranTrials !== null && ranTrials !== fullTrials) out.trials = { ran: ranTrials, full: fullTrials };
  if (reduced.concurrency) out.concurrency = { ran: reduced.concurrency, full: full.concurrency ?? null };
  if (reduced.batches !== undefined) out.batches = { ran: reduced.batches, full: full.batches ?? null };
  return out.spec || out.arms || out.trials || out.concurrency || out.batches ? out : null;
}
