/**
 * After the last trial (or an interruption): derive the CSVs from the journal, render the report,
 * then hash everything into manifest.json. Runs on partial bundles too, so Ctrl-C never loses what
 * was recorded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import type { TaskImage } from '../image/task-image.ts';
import { readManifest, writeManifest } from '../provenance/manifest.ts';
import type { ResolvedSpec } from '../spec/resolve-spec.ts';
import { harnessRevision } from '../provenance/host-facts.ts';
import { distinctRevisions, invocationRevisions } from '../provenance/invocations.ts';
import { analyzeBundle } from '../analyze/index.ts';
import type { ReportRenderer } from '../contracts/wiring.ts';
import type { KindCatalog } from '../analyze/kind-analysis.ts';

export interface FinalizeOptions {
  resolved: ResolvedSpec;
  complete: boolean;
  resumed: boolean;
  image: TaskImage;
  log: (message: string) => void;
  /** Kind name → descriptor, for analyze (the run's kind registry). */
  kinds: KindCatalog;
  renderReport: ReportRenderer;
}

function toolVersions(bundleDir: string): Record<string, string> {
  const path = join(bundleDir, BUNDLE_FILES.environment);
  if (!existsSync(path)) return {};
  const environment = JSON.parse(readFileSync(path, 'utf8')) as { backends?: Record<string, { version: string | null }>; harness?: { node?: string } };
  const versions: Record<string, string> = { node: environment.harness?.node ?? process.version };
  for (const [backend, facts] of Object.entries(environment.backends ?? {})) if (facts.version) versions[backend] = facts.version;
  return versions;
}

function previousResumeCount(bundleDir: string): number {
  try {
    return readManifest(bundleDir).resume_count;
  } catch {
    return 0;
  }
}

export async function finalizeBundle(bundleDir: string, options: FinalizeOptions): Promise<void> {
  const analyzed = analyzeBundle(bundleDir, options.kinds);
  try {
    options.renderReport(analyzed);
  } catch (error) {
    // A rendering bug must not cost the recorded data: the CSVs and manifest are still written.
    options.log(`report rendering failed: ${error instanceof Error ? error.message : error}`);
  }
  const revision = await harnessRevision();
  const resumeCount = previousResumeCount(bundleDir) + (options.resumed ? 1 : 0);
  writeManifest(bundleDir, {
    run_id: options.resolved.run_id,
    spec_sha256: options.resolved.spec_sha256,
    seed: options.resolved.spec.seed,
    harness_commit: revision.commit,
    harness_dirty: revision.dirty,
    harness_commits: distinctRevisions([...invocationRevisions(bundleDir), revision]),
    tool_versions: toolVersions(bundleDir),
    image_digests: { task: options.image.digest },
    resumed: resumeCount > 0,
    resume_count: resumeCount,
    complete: options.complete,
  });
}
