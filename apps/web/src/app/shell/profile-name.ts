import type { Account } from '@herald/contracts';
import { initialsOf } from '../../ui/company-logo.tsx';

/** The name and initials the profile button and menu show for the signed-in member. */
export function profileName(account: Account) {
  const member = account.teamMember;
  const displayName = member.name || account.name || member.email;
  return { displayName, initials: initialsOf(displayName) };
}
