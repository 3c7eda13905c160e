/** reports/: read finished bundles and render reports, comparisons, gates and reproductions. Never imports executors or spawns processes. */
export { writeReport, renderBundleReport } from './write-report.ts';
export { readBundle, type Bundle } from './bundle/read-bundle.ts';
