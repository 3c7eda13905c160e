/**
 * Which two arms of one bundle an interleaved gate judges when the command line names fewer than
 * two: the spec's `compare` pair when it names one, else the first arm of the run is the control
 * (the same default the analysis uses) — and the returned note says which default applied, so the
 * output never hides the choice. Ambiguity (which candidate?) is a UserError listing the arms.
 */
import { UserError } from '../../harness/errors.ts';
import type { AnalyzedBundle } from '../../harness/analyze/index.ts';
import { armsOf } from '../compare/bundle-comparison.ts';

export interface InterleavedArms {
  baseline: string;
  candidate: string;
  /** Set when a side was not given: how it was chosen. */
  note: string | null;
}

export function interleavedArms(bundle: Pick<AnalyzedBundle, 'analysis' | 'resolved' | 'dir'>, baselineArm?: string, candidateArm?: string): InterleavedArms {
  if (baselineArm && candidateArm) return { baseline: baselineArm, candidate: candidateArm, note: null };
  const arms = armsOf(bundle as AnalyzedBundle);
  const pairs = [...new Map((bundle.resolved.spec.compare ?? []).map((c) => [`${c.control}\u0000${c.candidate}`, c])).values()];
  const list = `arms: ${arms.join(', ') || 'none'}`;
  if (candidateArm) {
    const declared = [...new Set(pairs.filter((c) => c.candidate === candidateArm).map((c) => c.control))];
    if (declared.length === 1) return { baseline: declared[0]!, candidate: candidateArm, note: `baseline arm ${declared[0]}: the spec's compare control for ${candidateArm}` };
    if (declared.length > 1) throw new UserError(`--candidate-arm ${candidateArm}: the spec compares it with ${declared.join(' and ')}; name one with --baseline-arm`);
    const first = arms.find((a) => a !== candidateArm);
    if (!first || arms[0] !== first) throw new UserError(`--candidate-arm ${candidateArm} is the first arm of ${bundle.dir}, the default control; name the baseline with --baseline-arm (${list})`);
    return { baseline: first, candidate: candidateArm, note: `baseline arm ${first}: the spec declares no compare for ${candidateArm}, so the first arm of the run is the control (default; name another with --baseline-arm)` };
  }
  if (baselineArm) {
    const declared = [...new Set(pairs.filter((c) => c.control === baselineArm).map((c) => c.candidate))];
    if (declared.length === 1) return { baseline: baselineArm, candidate: declared[0]!, note: `candidate arm ${declared[0]}: the spec's compare candidate against ${baselineArm}` };
    const others = arms.filter((a) => a !== baselineArm);
    if (declared.length === 0 && others.length === 1) return { baseline: baselineArm, candidate: others[0]!, note: `candidate arm ${others[0]}: the only other arm of the run` };
    throw new UserError(`--baseline-arm ${baselineArm}: which arm is the candidate? name it with --candidate-arm (${list})`);
  }
  const pairList = [...new Map(pairs.map((c) => [`${c.control} → ${c.candidate}`, c])).values()];
  if (pairList.length === 1) return { baseline: pairList[0]!.control, candidate: pairList[0]!.candidate, note: `arms from the spec's compare: baseline ${pairList[0]!.control}, candidate ${pairList[0]!.candidate}` };
  if (pairList.length === 0 && arms.length === 2) {
    return { baseline: arms[0]!, candidate: arms[1]!, note: `baseline arm ${arms[0]} (the first arm of the run: the spec declares no compare, so the first arm is the control) and candidate arm ${arms[1]}` };
  }
  throw new UserError(`one bundle: name the two sides with --baseline-arm and --candidate-arm (${list}), or use --aa for an A/A split`);
}
