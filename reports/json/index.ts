/** Every `--json` schema in one place (README "Machine-readable output"): run/analyze's AnalysisJsonSchema and one per other command. */
export { AnalysisJsonSchema, type AnalysisJson } from '../../harness/analyze/index.ts';
export * from './outputs.ts';
export { jsonDocument } from './cells.ts';
