/**
 * What the composition root (cli/) hands the run loop, `clean`, `merge` and `doctor`: the adapters
 * of the layers above harness/, so harness/ never imports them (the layer rule in
 * docs/architecture.md). Built once in cli/wiring.ts.
 */
import type { LeftoverSource } from '../clean/leftover.ts';
import type { Executor } from './executor.ts';
import type { Experiment } from './experiment-kind.ts';
import type { AnalyzedBundle } from '../analyze/analyze-bundle.ts';
import type { KindCatalog } from '../analyze/kind-analysis.ts';
import type { SpecKinds } from '../spec/kind-spec.ts';
import type { ArmBuild } from '../spec/arm-build.ts';
import type { Spec } from '../spec/schema.ts';

/** Backend name (+ variant, + the arm's build: harness/spec/arm-build.ts) → a fresh executor, or null when this build has no adapter for it. */
export type ExecutorFactory = (backend: string, variant: string | null, build?: ArmBuild) => Executor | null;

/** Renders report.html/report.md of an analysed bundle whose CSVs are written (the reports/ layer). */
export type ReportRenderer = (analyzed: AnalyzedBundle) => void;

/** What `merge` needs to analyse and report a merged bundle. */
export interface ReportWiring {
  /** Kind name → descriptor (its `analysis` half), for analyze. */
  kinds: KindCatalog;
  renderReport: ReportRenderer;
}

export interface RunWiring {
  /** The built-in backends' executors. */
  createExecutor: ExecutorFactory;
  /** The executors one spec runs with: the built-in backends plus those its `backends:` declares (templates, loaded modules). */
  executorsFor(spec: Spec): Promise<ExecutorFactory>;
  /** Experiment kind name → its implementation; undefined when this build lacks the kind. */
  kindFor(kind: string): Experiment | undefined;
  /** The same registry as the spec loader sees it (kind names, sections, rules). */
  specKinds: SpecKinds;
  /** Backend-specific leftover finders (containers, private daemons) for resume and clean. */
  leftoverSources: readonly LeftoverSource[];
  renderReport: ReportRenderer;
}
