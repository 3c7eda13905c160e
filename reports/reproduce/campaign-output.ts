/**
 * What `reproduce --campaign` writes: campaign-summary.csv (one line per published row, the header
 * below is a public contract), campaign-orderings.csv, report.md, the printed summary and the --json
 * document. Rendering only: every figure comes from the join (campaign-join.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toCsv } from '../../harness/bundle/csv.ts';
import { formatTextTable } from '../compare/compare-output.ts';
import { fmt, fmtInterval, fmtRatio } from '../render/format.ts';
import { mdDetails, mdTable } from '../render/markdown.ts';
import type { Table } from '../render/tables.ts';
import type { CampaignReproduction } from './campaign-join.ts';

/** campaign-summary.csv, one line per published row (README "reproduce --campaign" documents each column). */
export const CAMPAIGN_SUMMARY_HEADER = [
  'published_row', 'status', 'topic', 'published_backend', 'published_statistic', 'batch_date', 'published_n', 'published_value', 'unit',
  'entry', 'run_id', 'our_variant', 'our_metric', 'our_statistic', 'cell', 'our_n', 'our_value', 'our_ci95_low', 'our_ci95_high', 'our_ci_method',
  'reference', 'published_ratio_to_reference', 'our_ratio_to_reference', 'reason', 'source_file',
] as const;

export const CAMPAIGN_ORDERINGS_HEADER = ['id', 'claim', 'entry', 'faster', 'slower', 'published_ratio', 'our_ratio', 'our_ratio_ci95_low', 'our_ratio_ci95_high', 'n', 'status', 'reason', 'method'] as const;

export function campaignSummaryCsv(r: CampaignReproduction): string {
  const rows = [
    ...r.matched.map((m) => [
      m.published.row, 'matched', m.published.topic, m.published.backend, m.published.statistic, m.published.batchDate, m.published.n, m.published.value, m.published.unit,
      m.entry, m.runId, m.variant, m.metric, m.statistic, m.cell, m.ours.n, m.ours.value, m.ours.ciLow, m.ours.ciHigh, m.ours.ciMethod,
      m.reference, m.publishedRatio, m.ourRatio, '', m.published.sourceFile,
    ]),
    ...r.unmatched.map((u) => [
      u.published.row, 'unmatched', u.published.topic, u.published.backend, u.published.statistic, u.published.batchDate, u.published.n, u.published.value, u.published.unit,
      '', '', '', '', '', '', '', '', '', '', '', '', '', '', u.reason, u.published.sourceFile,
    ]),
  ].sort((a, b) => Number(a[0]) - Number(b[0]));
  return toCsv(CAMPAIGN_SUMMARY_HEADER, rows);
}

export function campaignOrderingsCsv(r: CampaignReproduction): string {
  return toCsv(CAMPAIGN_ORDERINGS_HEADER, r.orderings.map((o) => [o.id, o.claim, o.entry, o.faster, o.slower, o.publishedRatio, o.ourRatio, o.ourLow, o.ourHigh, o.n, o.status, o.reason, o.method]));
}

function entriesTable(r: CampaignReproduction): Table {
  return {
    caption: 'Campaign entries',
    header: ['entry', 'run', 'kind', 'published rows matched', 'note'],
    rows: r.entries.map((e) => [e.entry, e.runId ?? '—', e.experiment ?? '—', String(e.matched), [e.adoptedFrom ? `adopted from ${e.adoptedFrom}` : '', e.missingReason].filter(Boolean).join('; ')]),
  };
}

function orderingsTable(r: CampaignReproduction): Table {
  return {
    caption: 'Published orderings judged on this machine (ratio = slower / faster; capacity cells: full batches / planned)',
    header: ['claim', 'entry', 'published ratio', 'our ratio [95% CI]', 'n', 'status', 'detail'],
    rows: r.orderings.map((o) => [o.claim, o.entry || '—', fmtRatio(o.publishedRatio), o.ourRatio === null ? '—' : `${fmtRatio(o.ourRatio)} ${fmtInterval(o.ourLow, o.ourHigh, fmtRatio)}`, o.n || '—', o.status, o.reason]),
  };
}

function matchedTable(r: CampaignReproduction): Table {
  return {
    caption: `Published rows matched (${r.matched.length} of ${r.published})`,
    header: ['row', 'topic', 'published backend → ours', 'statistic', 'cell', 'published (n)', 'ours [95% CI] (n)', 'ratio to reference: published / ours'],
    rows: r.matched.map((m) => [
      String(m.published.row),
      m.published.topic,
      `${m.published.backend} → ${m.variant}`,
      m.published.statistic,
      m.cell || '—',
      `${fmt(m.published.value, m.published.unit)} (${m.published.n ?? '?'})`,
      `${fmt(m.ours.value, m.ours.unit)}${m.ours.ciLow !== null ? ` ${fmtInterval(m.ours.ciLow, m.ours.ciHigh)}` : ''} (${m.ours.n ?? '?'})`,
      m.reference ? `÷ ${m.reference}: ${fmtRatio(m.publishedRatio)} / ${fmtRatio(m.ourRatio)}` : '—',
    ]),
  };
}

function reasonsTable(r: CampaignReproduction): Table {
  const groups = new Map<string, number>();
  for (const u of r.unmatched) groups.set(u.reason, (groups.get(u.reason) ?? 0) + 1);
  return {
    caption: `Published rows not matched (${r.unmatched.length}), by reason`,
    header: ['rows', 'why'],
    rows: [...groups].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([why, n]) => [String(n), why]),
  };
}

export function campaignHeadline(r: CampaignReproduction): string {
  const judged = r.orderings.filter((o) => o.status !== 'not checked');
  const holding = judged.filter((o) => o.status.startsWith('holds')).length;
  return `${r.matched.length} of ${r.published} published rows matched, ${r.unmatched.length} unmatched with a reason; ${judged.length} of ${r.orderings.length} orderings judged (${holding} hold)`;
}

export function campaignText(r: CampaignReproduction): string {
  return [campaignHeadline(r), '', formatTextTable(entriesTable(r)), '', formatTextTable(orderingsTable(r)), '', formatTextTable(reasonsTable(r)), ''].join('\n');
}

/** Entries whose bundle was run outside the campaign and adopted (--adopt), and from where. */
function adoptedLines(r: CampaignReproduction): string[] {
  const adopted = r.entries.filter((e) => e.adoptedFrom);
  if (adopted.length === 0) return [];
  return [`- Adopted bundles (run before this campaign, copied in with \`--adopt\` after verifying and matching the entry's resolved spec): ${adopted.map((e) => `${e.entry} from ${e.adoptedFrom}`).join('; ')}.`];
}

export function campaignMarkdown(r: CampaignReproduction, context: { campaignDir: string; mode: string; publishedPath: string; wallSeconds: number | null }): string {
  return [
    `# sandbench reproduce --campaign${context.mode === 'quick' ? ' --quick' : ''}: ${context.campaignDir}`,
    '',
    `**${campaignHeadline(r)}.**${context.wallSeconds !== null ? ` Campaign wall time (this invocation): ${Math.round(context.wallSeconds)} s.` : ''}`,
    '',
    mdTable(entriesTable(r)),
    '',
    mdTable(orderingsTable(r)),
    '',
    mdTable(matchedTable(r)),
    '',
    mdTable(reasonsTable(r)),
    '',
    mdDetails('Every unmatched published row, with why', r.unmatched.map((u) => `- row ${u.published.row}: ${u.published.topic} / ${u.published.backend} / ${u.published.statistic} (${u.published.batchDate}): ${u.reason}`).join('\n') || '(none)'),
    '',
    mdDetails(
      'Method',
      [
        `- Published figures: ${context.publishedPath} (data/published/README.md gives source and date).`,
        '- Each bundle is joined as `sandbench reproduce <bundle>` joins it; a published row is matched by the first bundle that matches it, else it carries the reason a bundle of its kind gave, else why that kind has no bundle here.',
        context.mode === 'quick' ? '- `--quick`: reduced N per entry (experiments/specs/campaign.yaml `quick:`); P95 rows need n ≥ 30 and stay unmatched with that reason, orderings need ≥ 5 ok samples per arm.' : '- Full protocol: every entry at its spec\'s N.',
        '- Absolute times differ across machines (this host may lack KVM): compare ratios and orderings.',
        ...adoptedLines(r),
      ].join('\n'),
    ),
    '',
  ].join('\n');
}

export function campaignJson(r: CampaignReproduction, context: { campaignDir: string; mode: string; wallSeconds: number | null }): unknown {
  return {
    campaign: context.campaignDir,
    mode: context.mode,
    wall_seconds: context.wallSeconds,
    published_rows: r.published,
    matched_count: r.matched.length,
    unmatched_count: r.unmatched.length,
    entries: r.entries,
    orderings: r.orderings,
    matched: r.matched.map((m) => ({ row: m.published.row, topic: m.published.topic, published_backend: m.published.backend, published_statistic: m.published.statistic, published_value: m.published.value, entry: m.entry, run_id: m.runId, variant: m.variant, metric: m.metric, statistic: m.statistic, cell: m.cell, ours: m.ours, reference: m.reference, published_ratio: m.publishedRatio, our_ratio: m.ourRatio })),
    unmatched: r.unmatched.map((u) => ({ row: u.published.row, topic: u.published.topic, published_backend: u.published.backend, published_statistic: u.published.statistic, reason: u.reason })),
  };
}

export function writeCampaignOutputs(r: CampaignReproduction, campaignDir: string, context: { mode: string; publishedPath: string; wallSeconds: number | null }): string[] {
  mkdirSync(campaignDir, { recursive: true });
  const files: [string, string][] = [
    [join(campaignDir, 'campaign-summary.csv'), campaignSummaryCsv(r)],
    [join(campaignDir, 'campaign-orderings.csv'), campaignOrderingsCsv(r)],
    [join(campaignDir, 'report.md'), campaignMarkdown(r, { campaignDir, ...context })],
  ];
  for (const [path, text] of files) writeFileSync(path, text);
  return files.map(([path]) => path);
}
