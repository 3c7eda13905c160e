/**
 * Modules that register analysis extensions for their kind (see kind-extensions.ts). Add one import
 * line per kind, e.g. `import '../../experiments/density/analysis.ts';` — the imported module must
 * stay pure (no executors, no processes: the dependency rule for harness/analyze).
 */
export {};
import '../../experiments/density/density-analysis.ts';
import '../../experiments/replay/replay-analysis.ts';
import '../../experiments/isolation/isolation-analysis.ts';
import '../../experiments/lazy-image/lazy-image-analysis.ts';
