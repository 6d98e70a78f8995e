import { backupCommand, restoreCommand } from './backup.ts';
import { marketplaceCodesCommand } from './marketplace-codes.ts';
import { planCommand } from './plan.ts';

/** An operator command: `npm run cli -- <name> <args…>`. Prints what it did; throws a CliError to exit 2 with a message. */
export interface CliCommand {
  name: string;
  /** One line for `npm run cli -- help`. */
  usage: string;
  run(args: string[]): Promise<void>;
}

export class CliError extends Error {}

/** Every operator command; each lives in a file of its own next to this one. */
export const commands: CliCommand[] = [backupCommand, restoreCommand, marketplaceCodesCommand, planCommand];
