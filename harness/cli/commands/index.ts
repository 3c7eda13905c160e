import type { Command } from 'commander';

/** One entry per subcommand module; add yours here. */
export const COMMAND_REGISTRARS: ((program: Command) => void)[] = [];
