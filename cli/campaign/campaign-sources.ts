/**
 * The campaign's bundles as the join sees them: each entry's analysed bundle, or why it has none
 * (skipped in this mode, its run failed before finalizing, never run).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import type { CampaignList, CampaignModeName } from '../../harness/campaign/campaign-list.ts';
import { bundleDirOf, type CampaignState } from '../../harness/campaign/campaign-state.ts';
import { modeReduction, specBasics } from '../../harness/campaign/mode-reduction.ts';
import type { CampaignBundle } from '../../reports/reproduce/campaign-join.ts';
import { analyzedBundle } from '../kinds.ts';

export async function campaignSources(campaignDir: string, list: CampaignList, mode: CampaignModeName, state: CampaignState | null): Promise<CampaignBundle[]> {
  const sources: CampaignBundle[] = [];
  for (const entry of list.entries) {
    const dir = bundleDirOf(campaignDir, entry);
    const attempt = state?.entries[entry.id];
    const adopted = attempt?.adopted ? { source: attempt.adopted.source, runId: attempt.adopted.run_id, harnessCommit: attempt.adopted.harness_commit } : undefined;
    const base = { entry: entry.id, topics: entry.topics, reduction: modeReduction(entry, mode), arms: specBasics(entry.specPaths[mode]).arms, ...(adopted ? { adopted } : {}) };
    if (entry[mode].skip) {
      sources.push({ ...base, bundle: null, missingReason: `skipped in ${mode === 'quick' ? '--quick' : 'the full campaign'}: ${entry[mode].skip}` });
      continue;
    }
    // A finalized bundle (manifest written) is joined even if a later attempt failed: its records are real.
    if (!existsSync(join(dir, BUNDLE_FILES.manifest))) {
      const why = attempt ? `${attempt.status}: ${attempt.reason || 'no bundle was finalized'}` : 'not run yet in this campaign directory';
      sources.push({ ...base, bundle: null, missingReason: why });
      continue;
    }
    const bundle = await analyzedBundle(dir);
    const complete = (JSON.parse(readFileSync(join(dir, BUNDLE_FILES.manifest), 'utf8')) as { complete?: unknown }).complete;
    sources.push({ ...base, bundle, missingReason: complete === false ? 'bundle incomplete (run stopped early): figures cover the trials recorded' : undefined });
  }
  return sources;
}
