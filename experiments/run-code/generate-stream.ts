/**
 * A request stream in the shape verl's reward path sends for code-contest data (codecontests, apps,
 * taco: a program reading stdin, judged on its stdout), for the languages the task image runs. Each
 * entry is one test case of one candidate program; candidates are correct, wrong, crashing or
 * non-terminating in the seeded proportions of `mix` (a wrong program is wrong on every input), and the entry records the verdict verl must
 * reach. Deterministic for a seed. Usage:
 *   npx tsx experiments/run-code/generate-stream.ts --n 512 --seed 7 [--languages python,bash] [--run-timeout 3] > stream.jsonl
 */
import { createPrng } from '../../harness/plan/prng.ts';
import { RUN_CODE_STREAM_SCHEMA, type StreamEntry, type VerlVerdict } from './request-stream.ts';

type Flavour = 'correct' | 'wrong' | 'crash' | 'hang';

/** One problem: an input from a seeded draw, its expected output, and a program per flavour and language. */
interface Problem {
  name: string;
  input(draw: (max: number) => number): string;
  expected(input: string): string;
  programs: Record<string, Record<Flavour, string>>;
}

const HANG = { python: 'while True:\n    pass\n', bash: 'while :; do :; done\n', cpp: 'int main() {\n  volatile unsigned long spin = 0;\n  for (;;) spin++;\n}\n' };
const CRASH = {
  python: 'import sys\nline = sys.stdin.readline()\nraise ValueError("candidate crashed on " + line.strip())\n',
  bash: 'read x\necho "bad input $x" >&2\nexit 3\n',
  cpp: '#include <iostream>\n#include <string>\nint main() {\n  std::string line;\n  std::getline(std::cin, line);\n  std::cerr << "bad input " << line << "\\n";\n  return 3;\n}\n',
};
/** C++ candidates (compiled by the cpp recipe, services/run-code/languages.ts: the image needs `serve run-code --compilers` or g++ in image.packages). */
const CPP_MAIN = (body: string) => `#include <iostream>\n#include <string>\n#include <vector>\nint main() {\n${body}}\n`;

const PROBLEMS: Problem[] = [
  {
    name: 'sum-of-list',
    input: (draw) => {
      const count = 1 + draw(20);
      return `${count}\n${Array.from({ length: count }, () => draw(1000)).join(' ')}\n`;
    },
    expected: (input) => String(input.split('\n')[1]!.split(' ').map(Number).reduce((a, b) => a + b, 0)),
    programs: {
      python: { correct: 'n = int(input())\nprint(sum(map(int, input().split())))\n', wrong: 'n = int(input())\nprint(sum(map(int, input().split())) - 1)\n', crash: CRASH.python, hang: HANG.python },
      bash: { correct: 'read n\nread -a xs\ns=0\nfor x in "${xs[@]}"; do s=$((s + x)); done\necho $s\n', wrong: 'read n\nread -a xs\ns=1\nfor x in "${xs[@]}"; do s=$((s + x)); done\necho $s\n', crash: CRASH.bash, hang: HANG.bash },
      cpp: {
        correct: CPP_MAIN('  long n, s = 0, x;\n  std::cin >> n;\n  for (long i = 0; i < n; i++) { std::cin >> x; s += x; }\n  std::cout << s << "\\n";\n'),
        wrong: CPP_MAIN('  long n, s = 1, x;\n  std::cin >> n;\n  for (long i = 0; i < n; i++) { std::cin >> x; s += x; }\n  std::cout << s << "\\n";\n'),
        crash: CRASH.cpp, hang: HANG.cpp,
      },
    },
  },
  {
    name: 'reverse-words',
    input: (draw) => `${Array.from({ length: 1 + draw(8) }, () => ['alpha', 'beta', 'gamma', 'delta', 'eps'][draw(5)]).join(' ')}\n`,
    expected: (input) => input.trim().split(' ').reverse().join(' '),
    programs: {
      python: { correct: 'print(" ".join(reversed(input().split())))\n', wrong: 'print(input().upper())\n', crash: CRASH.python, hang: HANG.python },
      bash: { correct: 'read -a w\nout=""\nfor ((i=${#w[@]}-1; i>=0; i--)); do out="$out${out:+ }${w[i]}"; done\necho "$out"\n', wrong: 'read line\necho "${line^^}"\n', crash: CRASH.bash, hang: HANG.bash },
      cpp: {
        correct: CPP_MAIN('  std::vector<std::string> w;\n  std::string x;\n  while (std::cin >> x) w.push_back(x);\n  for (size_t i = w.size(); i-- > 0;) std::cout << w[i] << (i ? " " : "\\n");\n'),
        wrong: CPP_MAIN('  std::string x;\n  bool first = true;\n  while (std::cin >> x) { std::cout << (first ? "" : " ") << x; first = false; }\n  std::cout << "\\n";\n'),
        crash: CRASH.cpp, hang: HANG.cpp,
      },
    },
  },
  {
    name: 'fibonacci-mod',
    input: (draw) => `${1 + draw(5000)}\n`,
    expected: (input) => {
      let [a, b] = [0, 1];
      for (let i = 0; i < Number(input.trim()); i++) [a, b] = [b, (a + b) % 1_000_000_007];
      return String(a);
    },
    programs: {
      python: { correct: 'n = int(input())\na, b = 0, 1\nfor _ in range(n):\n    a, b = b, (a + b) % 1000000007\nprint(a)\n', wrong: 'n = int(input())\na, b = 0, 1\nfor _ in range(n):\n    a, b = b, (a + b) % 1000000007\nprint(a + 1)\n', crash: CRASH.python, hang: HANG.python },
      bash: { correct: 'read n\na=0; b=1\nfor ((i=0; i<n; i++)); do t=$(( (a + b) % 1000000007 )); a=$b; b=$t; done\necho $a\n', wrong: 'read n\necho $((n + 1000000007))\n', crash: CRASH.bash, hang: HANG.bash },
      cpp: {
        correct: CPP_MAIN('  long n, a = 0, b = 1;\n  std::cin >> n;\n  for (long i = 0; i < n; i++) { long t = (a + b) % 1000000007; a = b; b = t; }\n  std::cout << a << "\\n";\n'),
        wrong: CPP_MAIN('  long n, a = 0, b = 1;\n  std::cin >> n;\n  for (long i = 0; i < n; i++) { long t = (a + b) % 1000000007; a = b; b = t; }\n  std::cout << a + 1 << "\\n";\n'),
        crash: CRASH.cpp, hang: HANG.cpp,
      },
    },
  },
];

const VERDICT: Record<Flavour, VerlVerdict> = { correct: 'success', wrong: 'wrong_answer', crash: 'runtime_error', hang: 'timeout' };

export interface StreamOptions {
  n: number;
  seed: number;
  languages: readonly string[];
  runTimeoutS: number;
  memoryLimitMb: number;
  /** Share of each flavour; the rest is correct. verl's reward data mixes passing and failing candidates. */
  mix: { wrong: number; crash: number; hang: number };
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = { n: 512, seed: 7, languages: ['python', 'bash'], runTimeoutS: 3, memoryLimitMb: 1024, mix: { wrong: 0.2, crash: 0.08, hang: 0.02 } };

export function generateStream(options: StreamOptions): StreamEntry[] {
  const prng = createPrng(options.seed);
  const draw = (max: number) => prng.int(0, max - 1);
  return Array.from({ length: options.n }, (_, index): StreamEntry => {
    const problem = PROBLEMS[draw(PROBLEMS.length)]!;
    const language = options.languages[draw(options.languages.length)]!;
    const programs = problem.programs[language];
    if (!programs) throw new Error(`generate-stream: no ${language} programs (have ${Object.keys(problem.programs).join(', ')})`);
    const roll = draw(10_000) / 10_000;
    const { wrong, crash, hang } = options.mix;
    const flavour: Flavour = roll < hang ? 'hang' : roll < hang + crash ? 'crash' : roll < hang + crash + wrong ? 'wrong' : 'correct';
    const input = problem.input(draw);
    return {
      schema: RUN_CODE_STREAM_SCHEMA,
      id: `g${options.seed}-${String(index).padStart(5, '0')}-${problem.name}-${language}-${flavour}`,
      language,
      code: programs[flavour],
      stdin: input,
      expected_stdout: `${problem.expected(input)}\n`,
      run_timeout: options.runTimeoutS,
      memory_limit_MB: options.memoryLimitMb,
      expect: VERDICT[flavour],
    };
  });
}

function parseArgs(argv: readonly string[]): StreamOptions {
  const options = { ...DEFAULT_STREAM_OPTIONS };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ''];
    if (flag === '--n') options.n = Number(value);
    else if (flag === '--seed') options.seed = Number(value);
    else if (flag === '--languages') options.languages = value.split(',');
    else if (flag === '--run-timeout') options.runTimeoutS = Number(value);
    else throw new Error(`generate-stream: unknown option ${flag} (--n, --seed, --languages, --run-timeout)`);
  }
  return options;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  for (const entry of generateStream(parseArgs(process.argv.slice(2)))) process.stdout.write(`${JSON.stringify(entry)}\n`);
}
