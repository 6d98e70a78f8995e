import { ConfigError } from '../config.ts';
import { CliError } from './cli-command.ts';
import { commands } from './commands.ts';

/** Entry point of `npm run cli -- <command> <args…>` (operator commands that have no screen). */
const [name, ...args] = process.argv.slice(2);
const command = commands.find((candidate) => candidate.name === name);
if (!command) {
  console.log(
    [
      'Usage: npm run cli -- <command> [arguments]',
      '',
      'Commands:',
      ...commands.map((c) => `  ${c.usage}`),
    ].join('\n'),
  );
  process.exit(name === undefined || name === 'help' ? 0 : 2);
}
try {
  await command.run(args);
  process.exit(0);
} catch (error) {
  const isExplained = error instanceof CliError || error instanceof ConfigError;
  console.error(isExplained ? error.message : error);
  process.exit(isExplained ? 2 : 1);
}
