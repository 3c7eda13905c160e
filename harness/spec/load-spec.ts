import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { ZodError } from 'zod';
import { UserError } from '../errors.ts';
import { SpecSchema, type Spec } from './schema.ts';

export interface LoadedSpec {
  path: string;
  /** The file's bytes as given (copied verbatim into the bundle as spec.yaml). */
  source: string;
  spec: Spec;
}

/** One line per problem: `file: field.path: what is expected`. */
export function formatSpecIssues(file: string, error: ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (remove or fix the spelling)`
          : issue.message === 'Invalid input: expected number, received undefined' ||
              issue.message.endsWith('received undefined')
            ? `missing required field (${issue.message.replace('Invalid input: ', '')})`
            : issue.message;
      return `${file}: ${field}: ${message}`;
    })
    .join('\n');
}

export function parseSpecText(file: string, source: string): Spec {
  let document: unknown;
  try {
    document = parseYaml(source, { prettyErrors: true });
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const where = error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : 'unknown position';
      throw new UserError(`${file}: YAML syntax error at ${where}: ${error.message.split('\n')[0]}`);
    }
    throw error;
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new UserError(`${file}: (top level): expected a YAML mapping with name, experiment, arms, ...`);
  }
  const parsed = SpecSchema.safeParse(document);
  if (!parsed.success) throw new UserError(formatSpecIssues(file, parsed.error));
  return parsed.data;
}

export function loadSpec(file: string): LoadedSpec {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(`${file}: cannot read spec (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path`);
  }
  return { path: file, source, spec: parseSpecText(file, source) };
}
