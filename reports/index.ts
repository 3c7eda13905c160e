/** reports/: renderings of analysed bundles (harness/analyze's BundleAnalysis): report, compare, gate, reproduce. Never imports executors or spawns processes. */
export { writeReport, renderBundleReport } from './write-report.ts';
