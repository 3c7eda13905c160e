/**
 * The `effects` synthetic task (issue 19): a prefix whose tool calls really do something, so
 * re-executing it has a cost worth timing and observations worth comparing. Seven prefix calls, one
 * tool batch each: create a file, modify a baseline file, append to the new file, read it, hash it
 * with `python3 -c`, `git init` + `git status`, and one inherently fresh call (`date` with
 * nanoseconds), marked fresh in the ground truth. The eighth turn is the future action (it would
 * write `marker-<i>.txt`), left out of every prefix.
 *
 * Recorded observations are exactly what the commands print in the baseline workspace, final
 * newline included as a shell tool returns it (computed here, so the bytes are reproducible). The
 * fresh call's recorded value is the trajectory's own timestamp.
 */
import { createHash } from 'node:crypto';
import { baselineFiles, fixtureTask, isoAt, type ExpectedEffects, type FixtureTask, type FixtureTurn } from '../fixture-task.ts';

/** How many calls the effects prefix holds (the cut is after this step). */
export const EFFECTS_PREFIX_CALLS = 7;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function effectsTask(index: number, seed: number): FixtureTask {
  const base = fixtureTask(index, seed);
  const baseline = baselineFiles(base.userText);
  const notes = `notes-${index}.txt`;
  const notesAfter = `fixture-${index}\nstep-2\n`;
  const mainAfter = baseline['src/main.py']!.replace('fixture', 'edited');
  const turn = (k: number, command: string, observation: string, fresh = false): FixtureTurn => ({
    text: `fixture-text-${index}-${k}`,
    command,
    observation: `${observation}\n`,
    exitCode: 0,
    ...(fresh ? { fresh: true } : {}),
  });
  const turns: FixtureTurn[] = [
    turn(0, `printf 'fixture-%s\\n' ${index} > ${notes} && echo created ${notes}`, `created ${notes}`),
    turn(1, `sed -i 's/fixture/edited/' src/main.py && cat src/main.py`, mainAfter.trimEnd()),
    turn(2, `printf 'step-2\\n' >> ${notes} && wc -l < ${notes}`, '2'),
    turn(3, `cat ${notes}`, notesAfter.trimEnd()),
    turn(4, `python3 -c "import hashlib; print(hashlib.sha256(open('${notes}', 'rb').read()).hexdigest())"`, sha256(notesAfter)),
    // untracked entries sorted by path: .gitignore, TASK.md, notes-<i>.txt, src/
    turn(5, `git -c init.defaultBranch=main init -q && git status --short`, ['.gitignore', 'TASK.md', notes, 'src/'].map((p) => `?? ${p}`).join('\n')),
    turn(6, `date -u +%Y-%m-%dT%H:%M:%S.%NZ`, isoAt(base, 20).replace('Z', '000000Z'), true),
    turn(7, `python3 src/main.py > marker-${index}.txt`, ''),
  ];
  const effects: ExpectedEffects = { files: { [notes]: notesAfter, 'src/main.py': mainAfter }, opaqueDirs: ['.git'] };
  return { ...base, turns, prefixTurns: EFFECTS_PREFIX_CALLS, profile: 'effects', effects };
}
