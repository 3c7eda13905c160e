/** The top-level help's stand-ins (cli/commands/summaries.ts) say what each real command says. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_LOADERS } from '../../cli/commands/index.ts';
import { COMMAND_SUMMARIES } from '../../cli/commands/summaries.ts';

function usageOf(command: Command): string {
  return command.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`)).join(' ');
}

describe('command summaries', () => {
  it('cover exactly the registered commands', () => {
    expect(Object.keys(COMMAND_SUMMARIES).sort()).toEqual(Object.keys(COMMAND_LOADERS).sort());
  });

  for (const [name, load] of Object.entries(COMMAND_LOADERS)) {
    it(`${name}: arguments, options and description match its registration`, async () => {
      const program = new Command('sandbench');
      (await load())(program);
      const command = program.commands.find((c) => c.name() === name)!;
      expect({ args: usageOf(command), options: command.options.length > 0, description: command.description() }).toEqual(COMMAND_SUMMARIES[name]);
    });
  }
});
