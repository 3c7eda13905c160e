/**
 * The languages of verl 0.9.1's SandboxFusion client and how sandbench runs each. verl checks the name
 * against SUPPORTED_LANGUAGES before it sends anything (verl/utils/reward_score/sandbox_fusion/utils.py:34–64,
 * copied here with the facts in data/run-code/verl-0.9.1-sandbox-fusion.md), so the server accepts
 * exactly those names. Which ones run is decided by the task image, never by a list of "good"
 * languages: a language runs when its interpreter (or compiler) exists in the image's root filesystem, and every
 * other one gets SandboxFusion's `SandboxError` (verl: `sandbox_error`, score −1) naming what is missing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const VERL_LANGUAGES = [
  'python', 'cpp', 'nodejs', 'go', 'go_test', 'java', 'php', 'csharp', 'bash', 'typescript', 'sql', 'rust', 'cuda', 'lua', 'R',
  'perl', 'D_ut', 'ruby', 'scala', 'julia', 'pytest', 'junit', 'kotlin_script', 'jest', 'verilog', 'python_gpu', 'lean', 'swift', 'racket',
] as const;

export type VerlLanguage = (typeof VERL_LANGUAGES)[number];

/**
 * How one language runs: the source file the request's code is written to, an optional compile step
 * and the run step (argv, run in the workspace). `requires` is the image path whose presence decides
 * whether the language runs (the interpreter, or the compiler for a compiled language).
 */
export interface LanguageRecipe {
  file: string;
  /** Compile argv (SandboxFusion's compile command), run with compile_timeout; its result is the response's compile_result. */
  compile?: readonly string[];
  run: readonly string[];
  /** Absolute path inside the image. */
  requires: string;
}

const interpreted = (file: string, interpreter: string): LanguageRecipe => ({ file, run: [interpreter, file], requires: interpreter });

/**
 * SandboxFusion's own commands (sandbox/runners/major.py, copied with citations into
 * data/run-code/verl-0.9.1-sandbox-fusion.md): cpp is `g++ -std=c++17 <file> -o test <flags>` then
 * `./test`, where <flags> are those of -lcrypto, -lssl, -lpthread that link on the host; the task
 * image has no libssl-dev, so only -lpthread (glibc's, always present with g++). The compilers are not
 * in the default image: `serve run-code --compilers` and the compiled-language spec add
 * RUN_CODE_COMPILER_PACKAGES (services/run-code/image.ts).
 */
const RECIPES: Partial<Record<VerlLanguage, LanguageRecipe>> = {
  python: interpreted('main.py', '/usr/bin/python3'),
  bash: interpreted('main.sh', '/bin/bash'),
  nodejs: interpreted('main.js', '/usr/bin/node'),
  perl: interpreted('main.pl', '/usr/bin/perl'),
  ruby: interpreted('main.rb', '/usr/bin/ruby'),
  php: interpreted('main.php', '/usr/bin/php'),
  lua: interpreted('main.lua', '/usr/bin/lua'),
  R: interpreted('main.R', '/usr/bin/Rscript'),
  cpp: { file: 'main.cpp', compile: ['/usr/bin/g++', '-std=c++17', 'main.cpp', '-o', 'test', '-lpthread'], run: ['./test'], requires: '/usr/bin/g++' },
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
      if (!recipe) return [language, { runs: false, reason: `language ${language}: sandbench's runner has no recipe for it (test runners and compilers other than g++ are not implemented)` }];
      if (!existsSync(join(rootfsDir, recipe.requires))) return [language, { runs: false, reason: `language ${language}: the task image has no ${recipe.requires} (${recipe.compile ? 'serve run-code --compilers, or ' : ''}add its Debian package to image.packages)` }];
      return [language, { runs: true, recipe }];
    }),
  );
}

export function runnableLanguages(support: ReadonlyMap<VerlLanguage, LanguageSupport>): VerlLanguage[] {
  return [...support].filter(([, entry]) => entry.runs).map(([language]) => language);
}
