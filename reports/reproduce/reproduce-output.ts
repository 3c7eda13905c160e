/** reproduction.csv (every published row, matched or not), reproduction-orderings.csv, reproduction.md and the printed table. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { formatTextTable } from '../compare/compare-output.ts';
import { fmt, fmtInterval, fmtRatio } from '../render/format.ts';
import { mdDetails, mdTable } from '../render/markdown.ts';
import type { Table } from '../render/tables.ts';
import type { Reproduction } from './reproduce.ts';

export const REPRODUCTION_HEADER = [
  'status', 'topic', 'published_backend', 'published_statistic', 'batch_date', 'published_n', 'published_value', 'unit',
  'our_variant', 'our_metric', 'our_statistic', 'cell', 'our_n', 'our_value', 'our_ci95_low', 'our_ci95_high', 'our_ci_method',
  'reference', 'published_ratio_to_reference', 'our_ratio_to_reference', 'reason', 'source_file',
] as const;

/** reproduction.csv's cells, matched rows first (the `--json` rows are the same cells by column). */
export function reproductionRows(r: Reproduction): Cell[][] {
  const matched = r.matched.map((m) => [
    'matched', m.published.topic, m.published.backend, m.published.statistic, m.published.batchDate, m.published.n, m.published.value, m.published.unit,
    m.variant, m.metric, m.statistic, m.cell, m.ours.n, m.ours.value, m.ours.ciLow, m.ours.ciHigh, m.ours.ciMethod,
    m.reference, m.publishedRatio, m.ourRatio, '', m.published.sourceFile,
  ]);
  const unmatched = r.unmatched.map((u) => [
    'unmatched', u.published.topic, u.published.backend, u.published.statistic, u.published.batchDate, u.published.n, u.published.value, u.published.unit,
    '', '', '', '', '', '', '', '', '', '', '', '', u.reason, u.published.sourceFile,
  ]);
  return [...matched, ...unmatched];
}

export function reproductionCsv(r: Reproduction): string {
  return toCsv(REPRODUCTION_HEADER, reproductionRows(r));
}

export const ORDERINGS_HEADER = ['id', 'claim', 'faster', 'slower', 'published_ratio', 'our_ratio', 'our_ratio_ci95_low', 'our_ratio_ci95_high', 'n', 'status', 'reason', 'method'] as const;

export function orderingRows(r: Reproduction): Cell[][] {
  return r.orderings.map((o) => [o.id, o.claim, o.faster, o.slower, o.publishedRatio, o.ourRatio, o.ourLow, o.ourHigh, o.n, o.status, o.reason, o.method]);
}

export function orderingsCsv(r: Reproduction): string {
  return toCsv(ORDERINGS_HEADER, orderingRows(r));
}

export function matchedTable(r: Reproduction): Table {
  return {
    caption: `Published figures matched by run ${r.runId} (${r.experiment})`,
    header: ['topic', 'published backend', 'statistic', 'cell', 'published (n, cohort date)', 'ours [95% CI] (n)', 'ratio to reference: published / ours'],
    rows: r.matched.map((m) => [
      m.published.topic,
      `${m.published.backend} → ${m.variant}`,
      m.published.statistic,
      m.cell || '—',
      `${fmt(m.published.value, m.published.unit)} (${m.published.n ?? '?'}, ${m.published.batchDate})`,
      `${fmt(m.ours.value, m.ours.unit)}${m.ours.ciLow !== null ? ` ${fmtInterval(m.ours.ciLow, m.ours.ciHigh)}` : ''} (${m.ours.n ?? '?'})`,
      m.reference ? `÷ ${m.reference}: ${fmtRatio(m.publishedRatio)} / ${fmtRatio(m.ourRatio)}` : '—',
    ]),
  };
}

export function orderingTable(r: Reproduction): Table {
  return {
    caption: 'Published orderings: do they hold here? (ratio = slower / faster; capacity cells: full batches / planned)',
    header: ['claim', 'published ratio', 'our ratio [95% CI]', 'n', 'status', 'detail'],
    rows: r.orderings.map((o) => [o.claim, fmtRatio(o.publishedRatio), o.ourRatio === null ? '—' : `${fmtRatio(o.ourRatio)} ${fmtInterval(o.ourLow, o.ourHigh, fmtRatio)}`, o.n || '—', o.status, o.reason]),
  };
}

/** Unmatched rows grouped by reason, with the published rows each reason covers. */
export function unmatchedTable(r: Reproduction): Table {
  const groups = new Map<string, string[]>();
  for (const u of r.unmatched) {
    const list = groups.get(u.reason) ?? [];
    list.push(`${u.published.topic}/${u.published.backend}/${u.published.statistic}`);
    groups.set(u.reason, list);
  }
  return {
    caption: `Published rows not matched (${r.unmatched.length}), by reason`,
    header: ['why', 'rows', 'examples'],
    rows: [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0])).map(([why, rows]) => [why, String(rows.length), [...new Set(rows)].slice(0, 3).join('; ') + (new Set(rows).size > 3 ? '; …' : '')]),
  };
}

export function reproductionText(r: Reproduction): string {
  return [
    `${r.matched.length} published row(s) matched, ${r.unmatched.length} not matched (run ${r.runId}, ${r.experiment})`,
    '',
    formatTextTable(matchedTable(r)),
    '',
    formatTextTable(orderingTable(r)),
    '',
    formatTextTable(unmatchedTable(r)),
    '',
  ].join('\n');
}

export function reproductionMarkdown(r: Reproduction, publishedPath: string): string {
  const unmatchedRows = r.unmatched.map((u) => `- ${u.published.topic} / ${u.published.backend} / ${u.published.statistic} (${u.published.batchDate}): ${u.reason}`);
  return [
    `## sandbench reproduce: run ${r.runId} (${r.experiment}) vs the published study`,
    '',
    mdTable(matchedTable(r)),
    '',
    mdTable(orderingTable(r)),
    '',
    mdTable(unmatchedTable(r)),
    '',
    mdDetails('Every unmatched published row, with why', unmatchedRows.join('\n') || '(none)'),
    '',
    mdDetails(
      'Method',
      [
        `- Published figures: ${publishedPath} (see data/published/README.md for source and date).`,
        '- Joined on scenario/topic, variant (arm label via the mapping file), metric and statistic; density cells also on workload and N.',
        '- Our P50 CIs: order-statistic (binomial) 95% intervals; differences: the bundle’s bootstrap CIs; ordering ratios: compareMedians (paired by block when possible), percentile 95% CI.',
        '- Absolute times differ across machines (this host may lack KVM): compare the ratios and orderings, not the absolute values.',
      ].join('\n'),
    ),
    '',
  ].join('\n');
}

export function writeReproduction(r: Reproduction, outDir: string, publishedPath: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const files = [join(outDir, 'reproduction.csv'), join(outDir, 'reproduction-orderings.csv'), join(outDir, 'reproduction.md')];
  writeFileSync(files[0]!, reproductionCsv(r));
  writeFileSync(files[1]!, orderingsCsv(r));
  writeFileSync(files[2]!, reproductionMarkdown(r, publishedPath));
  return files;
}
