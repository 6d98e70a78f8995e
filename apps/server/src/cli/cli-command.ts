/** An operator command: `npm run cli -- <name> <args…>`. Prints what it did; throws a CliError to exit 2 with a message. */
export interface CliCommand {
  name: string;
  /** One line for `npm run cli -- help`. */
  usage: string;
  run(args: string[]): Promise<void>;
}

/** Here, not in commands.ts, which lists the commands: a command file that imported the list would make a circle. */
export class CliError extends Error {}
