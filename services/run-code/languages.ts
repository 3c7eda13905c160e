/**
 * The languages of verl 0.9.1's SandboxFusion client and how sandbench runs each. verl checks the name
 * against SUPPORTED_LANGUAGES before it sends anything (verl/utils/reward_score/sandbox_fusion/utils.py:34–64,
 * copied here with the facts in data/run-code/verl-0.9.1-sandbox-fusion.md), so the server accepts
 * exactly those names. Which ones run is decided by the task image, never by a list of "good"
 * languages: a language runs when its interpreter exists in the image's root filesystem, and every
 * other one gets SandboxFusion's `SandboxError` (verl: `sandbox_error`, score −1) naming what is missing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const VERL_LANGUAGES = [
  'python', 'cpp', 'nodejs', 'go', 'go_test', 'java', 'php', 'csharp', 'bash', 'typescript', 'sql', 'rust', 'cuda', 'lua', 'R',
  'perl', 'D_ut', 'ruby', 'scala', 'julia', 'pytest', 'junit', 'kotlin_script', 'jest', 'verilog', 'python_gpu', 'lean', 'swift', 'racket',
] as const;

export type VerlLanguage = (typeof VERL_LANGUAGES)[number];

/** How one language runs: the source file it is written to, and the interpreter (a path in the image) given that file. */
export interface LanguageRecipe {
  file: string;
  /** Interpreter path inside the image (absolute); the program is `<interpreter> <file>`. */
  interpreter: string;
}

/**
 * Interpreted languages only: a compiled language needs a compile step with its own timeout and
 * result (SandboxFusion's compile_result), which this runner does not implement yet. Those languages
 * are refused with that reason even in an image that has the compiler, so no result is ever faked.
 */
const RECIPES: Partial<Record<VerlLanguage, LanguageRecipe>> = {
  python: { file: 'main.py', interpreter: '/usr/bin/python3' },
  bash: { file: 'main.sh', interpreter: '/bin/bash' },
  nodejs: { file: 'main.js', interpreter: '/usr/bin/node' },
  perl: { file: 'main.pl', interpreter: '/usr/bin/perl' },
  ruby: { file: 'main.rb', interpreter: '/usr/bin/ruby' },
  php: { file: 'main.php', interpreter: '/usr/bin/php' },
  lua: { file: 'main.lua', interpreter: '/usr/bin/lua' },
  R: { file: 'main.R', interpreter: '/usr/bin/Rscript' },
};

export type LanguageSupport = { runs: true; recipe: LanguageRecipe } | { runs: false; reason: string };

export function isVerlLanguage(name: string): name is VerlLanguage {
  return (VERL_LANGUAGES as readonly string[]).includes(name);
}

/** What the image at `rootfsDir` can run, per verl language (computed once per server). */
export function languageSupport(rootfsDir: string): ReadonlyMap<VerlLanguage, LanguageSupport> {
  return new Map(
    VERL_LANGUAGES.map((language): [VerlLanguage, LanguageSupport] => {
      const recipe = RECIPES[language];
      if (!recipe) return [language, { runs: false, reason: `language ${language}: sandbench's runner has no recipe for it (compiled languages and test runners are not implemented)` }];
      if (!existsSync(join(rootfsDir, recipe.interpreter))) return [language, { runs: false, reason: `language ${language}: the task image has no ${recipe.interpreter} (add its Debian package to image.packages)` }];
      return [language, { runs: true, recipe }];
    }),
  );
}

export function runnableLanguages(support: ReadonlyMap<VerlLanguage, LanguageSupport>): VerlLanguage[] {
  return [...support].filter(([, entry]) => entry.runs).map(([language]) => language);
}
