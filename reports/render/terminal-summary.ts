/**
 * The terminal summary after `run` and `analyze`: headline first (hyperfine's one block per
 * command, benchstat's one table). One compact table per primary metric the kind declares —
 * arm | ok/planned | P50 [95% CI] | P95 (n ≥ 30) | ratio vs control [95% CI] | verdict — then one
 * sentence per comparison. Every number is a cell of summary.csv / comparisons.csv (rounded for
 * reading only); the full tables stay in the CSVs and the report.
 */
import { textTable, type AnalyzedBundle } from '../../harness/analyze/index.ts';
import { buildReportModel } from './report-model.ts';
import { familySentence, headlineComparisons, headlineTables, leadMetrics, verdictSentences } from './headline.ts';

export { headlineTables, verdictSentence } from './headline.ts';

export function terminalSummary(analyzed: AnalyzedBundle): string {
  const model = buildReportModel(analyzed);
  const lead = leadMetrics(model);
  const out: string[] = [];
  // A kind's own lead first (rollout: per cell throughput, reward, memory, bottleneck; each candidate against its control).
  if (model.kindLead) out.push(model.kindLead.table.caption, textTable(model.kindLead.table), '', ...model.kindLead.sentences, '');
  for (const table of headlineTables(model.headline, model.comparisons, lead)) out.push(table.caption, textTable(table), '');
  const sentences = headlineComparisons(model).some((c) => lead.includes(c.metric)) ? verdictSentences(model) : [];
  const family = familySentence(model.family);
  if (sentences.length > 0) out.push(...sentences, ...(family ? [family] : []), '');
  const method = model.comparisons.find((c) => lead.includes(c.metric) && c.method)?.method;
  if (method) out.push(`method: ${method.replace(/; seed \d+ \([^)]*\)$/, '; seeds per comparison in comparisons.csv')}`);
  const others = model.metrics.filter((m) => !lead.includes(m));
  if (others.length > 0) out.push(`other metrics (summary.csv, report.md): ${others.join(', ')}`);
  for (const warning of model.warnings) out.push(`warning: ${warning}`);
  out.push('(rounded for reading; the CSVs hold full precision)');
  return out.join('\n');
}
