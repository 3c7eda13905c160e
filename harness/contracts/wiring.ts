/**
 * What the composition root (cli/) hands the run loop, `clean`, `merge` and `doctor`: the adapters
 * of the layers above harness/, so harness/ never imports them (the layer rule in
 * docs/architecture.md). Built once in cli/wiring.ts.
 */
import type { LeftoverSource } from '../clean/leftover.ts';
import type { Executor } from './executor.ts';
import type { Experiment } from './experiment-kind.ts';

/** Backend name (+ variant) → a fresh executor, or null when this build has no adapter for it. */
export type ExecutorFactory = (backend: string, variant: string | null) => Executor | null;

/** Renders report.html/report.md of a bundle whose CSVs are written (the reports/ layer). */
export type ReportRenderer = (bundleDir: string) => void;

export interface RunWiring {
  createExecutor: ExecutorFactory;
  /** Experiment kind name → its implementation; undefined when this build lacks the kind. */
  kindFor(kind: string): Experiment | undefined;
  /** Backend-specific leftover finders (containers, private daemons) for resume and clean. */
  leftoverSources: readonly LeftoverSource[];
  renderReport: ReportRenderer;
}
