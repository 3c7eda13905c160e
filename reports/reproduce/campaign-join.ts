/**
 * The campaign join: every bundle of a campaign joined with the published figures at once. Each
 * published row appears exactly once: matched by the first bundle that matches it (ours with CI,
 * ratio to the reference backend), or unmatched with the most specific reason — the reason a bundle
 * of the row's kind gave (backend absent here, metric not measured, n too small, ...), else why that
 * kind has no bundle (not in the campaign list, skipped in this mode, its run failed), else the
 * mapping's reason (topic or backend unsupported). Each published ordering is judged by a bundle of
 * its kind that holds both arms.
 */
import type { AnalyzedBundle as Bundle } from '../../harness/analyze/index.ts';
import type { ModeReduction } from '../../harness/campaign/mode-reduction.ts';
import { reproduce, type MatchedRow, type OrderingCheck, type Reproduction } from './reproduce.ts';
import type { Mapping, PublishedRow } from './published.ts';

/** One campaign entry as the join sees it: its bundle, or why it has none. */
export interface CampaignBundle {
  entry: string;
  /** Published topics the entry is meant to reproduce (from the campaign list). */
  topics: readonly string[];
  bundle: Bundle | null;
  /** Why there is no (usable) bundle: "skipped in --quick: ...", "run failed (exit 1): ...". */
  missingReason?: string;
  /** What this mode left out of the entry's full protocol (so a row only --quick misses says so). */
  reduction?: ModeReduction | null;
  /** The arm labels of the entry's spec (so an arm absent from one bundle can name the entry that runs it). */
  arms?: readonly string[];
  /** The bundle was run elsewhere and adopted into the campaign (`--adopt`): from where. */
  adopted?: { source: string; runId: string; harnessCommit: string | null };
}

export interface CampaignMatched extends MatchedRow {
  entry: string;
  runId: string;
}

export interface CampaignUnmatched {
  published: PublishedRow;
  reason: string;
}

export interface CampaignOrdering extends OrderingCheck {
  entry: string;
}

export interface CampaignReproduction {
  published: number;
  matched: CampaignMatched[];
  unmatched: CampaignUnmatched[];
  orderings: CampaignOrdering[];
  entries: { entry: string; runId: string | null; experiment: string | null; matched: number; missingReason: string; adoptedFrom: string | null }[];
}

const NEEDS_RUN = /^needs an? \S+ run; this bundle is /;

interface PerBundle {
  source: CampaignBundle;
  result: Reproduction;
}

const listed = (xs: readonly (string | number)[]) => xs.join(', ');

/**
 * A bundle's reason, with what the mode left out when that is why: too few trials for a P95, a
 * cell (N) or an arm the reduced mode does not run. Other reasons (an arm no mode runs) stay as they are.
 */
export function explainReduction(reason: string, r: ModeReduction | null | undefined): string {
  if (!r) return reason;
  if (/^our n = \d+ < 30\b/.test(reason) && (r.trials || r.spec)) {
    const how = r.trials ? `${r.trials.ran} trials per arm (the full campaign ${r.trials.full ?? "the spec's trials"})` : `${r.spec!.ran} (the full campaign ${r.spec!.full})`;
    return `${reason} — ${r.mode} runs ${how}`;
  }
  const cell = /\bN=(\d+) was not run\b/.exec(reason);
  if (cell && r.concurrency && !r.concurrency.ran.includes(Number(cell[1]))) {
    return `${reason} — ${r.mode} runs N = ${listed(r.concurrency.ran)}${r.batches ? ` with ${r.batches.ran} batch(es) per cell` : ''}${r.concurrency.full ? `; the full campaign N = ${listed(r.concurrency.full)}` : ''}`;
  }
  const arm = /^arm (.+?) not in this bundle/.exec(reason);
  if (arm && r.arms) {
    const dropped = arm[1]!.split(/ or | and /).filter((label) => r.arms!.full.includes(label) && !r.arms!.ran.includes(label));
    if (dropped.length > 0) return `${reason} — ${r.mode} drops ${listed(dropped)} (runs ${listed(r.arms.ran)}); the full campaign runs it`;
  }
  return reason;
}

/** Why no bundle of this row's kind exists in the campaign. */
function notRunReason(p: PublishedRow, mapping: Mapping, sources: readonly CampaignBundle[]): string {
  const experiment = mapping.topics[p.topic]?.experiment;
  const meant = sources.filter((s) => s.topics.includes(p.topic));
  const missing = meant.filter((s) => !s.bundle).map((s) => `${s.entry}: ${s.missingReason ?? 'no bundle'}`);
  if (missing.length > 0) return `kind ${experiment ?? p.topic} not run: ${missing.join('; ')}`;
  return `kind ${experiment ?? p.topic} not run: no campaign entry reproduces topic ${p.topic}`;
}

/** An arm another entry of the row's topic runs, where that entry has no bundle here: say which and why. */
function withAbsentEntry(reason: string, p: PublishedRow, sources: readonly CampaignBundle[]): string {
  const arm = /^arm (.+?) not in this bundle/.exec(reason);
  if (!arm) return reason;
  const labels = arm[1]!.split(/ or | and /);
  const elsewhere = sources.filter((s) => !s.bundle && s.topics.includes(p.topic) && labels.some((label) => s.arms?.includes(label)));
  return elsewhere.length > 0 ? `${reason}; its entry has no bundle: ${elsewhere.map((s) => `${s.entry}: ${s.missingReason ?? 'no bundle'}`).join('; ')}` : reason;
}

function unmatchedReason(p: PublishedRow, mapping: Mapping, runs: readonly PerBundle[], sources: readonly CampaignBundle[]): string {
  const experiment = mapping.topics[p.topic]?.experiment;
  // Bundles of the row's kind; of those, the ones whose entry is meant for this topic say why (an idle
  // density entry has nothing to say about an active-capacity cell).
  const ofKind = runs.filter((r) => r.result.experiment === experiment);
  const meant = ofKind.filter((r) => r.source.topics.includes(p.topic));
  const reasons = (meant.length > 0 ? meant : ofKind)
    .map((r) => ({ entry: r.source.entry, reason: withAbsentEntry(explainReduction(r.result.unmatched.find((u) => u.published.row === p.row)?.reason ?? 'matched elsewhere', r.source.reduction), p, sources) }));
  if (reasons.length === 1) return reasons[0]!.reason;
  if (reasons.length > 1) {
    const distinct = [...new Set(reasons.map((r) => r.reason))];
    return distinct.length === 1 ? distinct[0]! : reasons.map((r) => `${r.entry}: ${r.reason}`).join('; ');
  }
  // No bundle of the row's kind: a reason that does not depend on the bundle (unsupported topic,
  // backend or statistic, no published value) is the mapping's; otherwise the kind was not run.
  const anyReason = runs.map((r) => r.result.unmatched.find((u) => u.published.row === p.row)?.reason).find((reason) => reason !== undefined && !NEEDS_RUN.test(reason));
  return anyReason ?? notRunReason(p, mapping, sources);
}

/** The judgement of an ordering: from a bundle of its kind that could check it, else the most telling "not checked". */
function pickOrdering(id: string, runs: readonly PerBundle[], mapping: Mapping, sources: readonly CampaignBundle[]): CampaignOrdering | null {
  const candidates = runs.flatMap((r) => r.result.orderings.filter((o) => o.id === id).map((o) => ({ ...o, reason: o.status === 'not checked' ? explainReduction(o.reason, r.source.reduction) : o.reason, entry: r.source.entry, experiment: r.result.experiment })));
  if (candidates.length === 0) return null;
  const topic = mapping.orderings.find((o) => o.id === id)?.topic;
  const experiment = topic ? mapping.topics[topic]?.experiment : undefined;
  const ofKind = candidates.filter((c) => c.experiment === experiment);
  const judged = ofKind.find((c) => c.status !== 'not checked');
  const pick = judged ?? ofKind[0];
  if (pick) {
    const { experiment: _experiment, ...check } = pick;
    return check;
  }
  const first = candidates[0]!;
  const { experiment: _experiment, ...check } = first;
  const reason = topic ? notRunReason({ topic } as PublishedRow, mapping, sources) : first.reason;
  return { ...check, entry: '', reason };
}

export function joinCampaign(sources: readonly CampaignBundle[], published: readonly PublishedRow[], mapping: Mapping): CampaignReproduction {
  const runs: PerBundle[] = sources.filter((s): s is CampaignBundle & { bundle: Bundle } => s.bundle !== null).map((s) => ({ source: s, result: reproduce(s.bundle, [...published], mapping) }));
  const matched: CampaignMatched[] = [];
  const unmatched: CampaignUnmatched[] = [];
  for (const p of published) {
    const hit = runs.map((r) => ({ r, m: r.result.matched.find((m) => m.published.row === p.row) })).find((x) => x.m !== undefined);
    if (hit?.m) matched.push({ ...hit.m, entry: hit.r.source.entry, runId: hit.r.result.runId });
    else unmatched.push({ published: p, reason: unmatchedReason(p, mapping, runs, sources) });
  }
  const ids = [...new Set(runs.flatMap((r) => r.result.orderings.map((o) => o.id)))];
  const orderings = ids.map((id) => pickOrdering(id, runs, mapping, sources)).filter((o): o is CampaignOrdering => o !== null);
  // With no bundle at all there is still one line per mapped ordering, each "not checked" with why.
  if (runs.length === 0) {
    for (const o of mapping.orderings) {
      orderings.push({ id: o.id, claim: o.claim, faster: o.faster, slower: o.slower, publishedRatio: null, ourRatio: null, ourLow: null, ourHigh: null, n: '', method: '', status: 'not checked', reason: notRunReason({ topic: o.topic } as PublishedRow, mapping, sources), entry: '' });
    }
  }
  const entries = sources.map((s) => ({
    entry: s.entry,
    runId: s.bundle?.resolved.run_id ?? null,
    experiment: s.bundle?.resolved.spec.experiment ?? null,
    matched: matched.filter((m) => m.entry === s.entry).length,
    missingReason: s.missingReason ?? '',
    adoptedFrom: s.adopted ? `${s.adopted.source} (harness ${s.adopted.harnessCommit?.slice(0, 12) ?? 'unknown'})` : null,
  }));
  return { published: published.length, matched, unmatched, orderings, entries };
}
