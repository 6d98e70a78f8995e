import { backupCommand, restoreCommand } from './backup.ts';
import { marketplaceCodesCommand } from './marketplace-codes.ts';
import { planCommand } from './plan.ts';
import type { CliCommand } from './cli-command.ts';

/** Every operator command; each lives in a file of its own next to this one. */
export const commands: CliCommand[] = [backupCommand, restoreCommand, marketplaceCodesCommand, planCommand];
