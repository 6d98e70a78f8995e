/** Registration wizard constants (docs/team-and-accounts.md). */
export const registrationSteps = ['email', 'name', 'phone', 'company', 'goals', 'password'] as const;
export type RegistrationStep = (typeof registrationSteps)[number];

export const estimatedContactsOptions = [
  '0 - 500',
  '1,000 - 2,000',
  '2,000 - 5,000',
  '5,000 - 10,000',
  '10,000 - 20,000',
  '20,000 - 50,000',
  '50,000 - 100,000',
  '100,000 - 200,000',
  '200,000 - 500,000',
  '500,000 - 1,000,000',
  'Over 1,000,000',
] as const;

/** Business types offered; 'Other' lets the user type their own, so industry is free text on the server. */
export const businessTypes = [
  'SaaS',
  'Agency',
  'Content Creator',
  'Education',
  'eCommerce',
  'Other',
] as const;

export const defaultAfterRegister = '/start?register=1';

/**
 * A company site: optional http(s) and www, a domain whose top-level part has 2-25 letters,
 * optional port, optional path.
 */
export const sitePattern =
  /^(?:https?:\/\/)?(?:www\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,25}(?::\d{1,5})?(?:\/[^\s]*)?$/i;

export function isValidSite(site: string): boolean {
  return site.length <= 2048 && sitePattern.test(site.trim());
}

export const passwordMinLength = 8;
export const passwordMaxLength = 200;

/** Trial length from sign-up (docs/team-and-accounts.md). */
export const trialDays = 14;

/** Account data the wizard looks at to decide the next step. */
export interface RegistrationState {
  email: string | null;
  name: string | null;
  phone: string | null;
  site: string | null;
  flags: { hasFilledGoals?: boolean; hasSetInitialPassword?: boolean };
  createdWithGoogleSignin: boolean;
}

/** The first missing item decides the step; null when nothing is missing (docs/team-and-accounts.md). */
export function nextRegistrationStep(state: RegistrationState): RegistrationStep | null {
  if (!state.email) return 'email';
  if (!state.name) return 'name';
  if (!state.phone) return 'phone';
  if (!state.site) return 'company';
  if (!state.flags.hasFilledGoals) return 'goals';
  if (!state.flags.hasSetInitialPassword && !state.createdWithGoogleSignin) return 'password';
  return null;
}
