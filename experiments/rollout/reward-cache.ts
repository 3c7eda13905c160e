/**
 * Reward dedup (issue 31, item 5): identical candidates are scored once. The key is what decides a
 * reward — the task, its baseline commit, the evaluator's version and the candidate's content
 * digest (candidate-store.ts: sha256 over every changed file's path and content and every
 * deletion) — so a hit hands back the reward the same scoring workspace already earned. Only a
 * successful score is cached: a scoring failure is infrastructure and the next identical candidate
 * scores afresh. Concurrent identical candidates wait for the one in flight instead of both scoring.
 *
 * Scope (`rollout.reward_dedup`): `off` scores every candidate (the default: the evaluation phase
 * stays comparable with older bundles); `cell` shares one cache inside a cell run, so arms each pay
 * their own first scoring and compare fairly; `run` shares one cache across the run, as a trainer
 * deduplicating a whole step would (the first cell to meet a candidate pays for every later one).
 */
import { z } from 'zod';
import type { ScoringResult } from './score-candidate.ts';

export const REWARD_DEDUP_SCOPES = ['off', 'cell', 'run'] as const;
export const RewardDedupSchema = z.enum(REWARD_DEDUP_SCOPES);
export type RewardDedupScope = (typeof REWARD_DEDUP_SCOPES)[number];

export interface RewardKeyParts {
  taskId: string;
  baseCommit: string;
  evaluatorVersion: string;
  candidateDigest: string;
}

export function rewardKey(parts: RewardKeyParts): string {
  return `task=${parts.taskId};base=${parts.baseCommit};evaluator=${parts.evaluatorVersion};candidate=${parts.candidateDigest}`;
}

/** What one scoring lookup did, recorded on the attempt. */
export interface RewardLookup {
  hit: boolean;
  key: string;
  /** The attempt whose scoring is reused (null on a miss). */
  source_attempt: string | null;
  /** The scoring wall a hit did not spend: the cached scoring's own (0 on a miss). */
  saved_ms: number;
}

interface CachedScore {
  result: ScoringResult;
  sourceAttempt: string;
  scoringMs: number;
}

const isScored = (result: ScoringResult) => result.score !== null && result.failure === null;

export class RewardCache {
  private readonly entries = new Map<string, CachedScore>();
  private readonly inflight = new Map<string, Promise<CachedScore | null>>();

  constructor(readonly scope: Exclude<RewardDedupScope, 'off'>) {}

  /** A cached score for `key`, else `fresh()` (cached when it scored). */
  async score(key: string, attemptId: string, fresh: () => Promise<ScoringResult>): Promise<{ result: ScoringResult; lookup: RewardLookup }> {
    // Looked up synchronously: an await before registering the flight would let a twin slip past it.
    const pending = this.entries.has(key) ? undefined : this.inflight.get(key);
    const cached = this.entries.get(key) ?? (pending ? await pending : null);
    if (cached) return { result: hitResult(cached.result), lookup: { hit: true, key, source_attempt: cached.sourceAttempt, saved_ms: cached.scoringMs } };
    let settle!: (entry: CachedScore | null) => void;
    this.inflight.set(key, new Promise((resolve) => (settle = resolve)));
    const start = process.hrtime.bigint();
    try {
      const result = await fresh();
      const entry = { result, sourceAttempt: attemptId, scoringMs: Number(process.hrtime.bigint() - start) / 1e6 };
      if (isScored(result)) this.entries.set(key, entry);
      settle(isScored(result) ? entry : null);
      return { result, lookup: { hit: false, key, source_attempt: null, saved_ms: 0 } };
    } catch (error) {
      settle(null);
      throw error;
    } finally {
      this.inflight.delete(key);
    }
  }
}

/** A hit: the cached score and scoring facts, no scoring sandbox (nothing to finish), parsed now. */
function hitResult(cached: ScoringResult): ScoringResult {
  return { ...cached, scoring: cached.scoring ? { ...cached.scoring, ms: 0 } : null, parsedNs: process.hrtime.bigint(), trial: null };
}

/** The cache a cell uses: none when off, a fresh one per cell run, or the run's one. */
export function rewardCacheFor(scope: RewardDedupScope, runCache: RewardCache | null): RewardCache | null {
  if (scope === 'off') return null;
  if (scope === 'cell') return new RewardCache('cell');
  return runCache ?? new RewardCache('run');
}
