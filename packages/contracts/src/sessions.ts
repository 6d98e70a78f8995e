import { z } from 'zod';
import { Password } from './accounts.ts';
import { passwordMaxLength } from './registration.ts';

/** Messages of sessions and password changes (docs/team-and-accounts.md, "Sessions"). */
export const sessionMessages = {
  notFound: 'That session has already ended.',
  isCurrent: 'This is the session you are using: log out instead.',
  ended: 'Session signed out.',
  othersEnded: 'Every other session is signed out.',
  endFailed: "Couldn't sign that session out.",
  couldNotLoad: "Couldn't load your sessions.",
  apiKeyRefused: 'Sessions and passwords are managed from the app, not with an API key.',
  wrongCurrentPassword: "Your current password isn't right.",
  noPasswordYet:
    'You sign in with Google and have no password yet. Use "Forgot password" on the login page to set one.',
  passwordChanged: '✅ Password changed. Your other sessions are signed out.',
  passwordChangeFailed: "Couldn't change your password.",
  memberSignedOut: 'Team member signed out everywhere in this account.',
  memberSignOutFailed: "Couldn't sign the team member out.",
  notYourself: 'To sign yourself out, use your profile.',
  ownerNeedsOwner: "Only an owner can end an owner's sessions.",
} as const;

/** One signed-in session of the user, as the profile lists it. */
export const SessionView = z.object({
  /** A random handle, not the cookie's token. */
  id: z.string(),
  /** "Chrome on Linux", read from the user agent at sign-in. */
  browser: z.string(),
  ip: z.string().nullable(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  isCurrent: z.boolean(),
});
export type SessionView = z.infer<typeof SessionView>;
export const SessionList = z.object({ sessions: z.array(SessionView) });
export type SessionList = z.infer<typeof SessionList>;

export const SessionIdParams = z.object({ id: z.uuid('Not a session id.') });

export const EndedSessions = z.object({ ended: z.number().int() });

/** POST /v1/profile/password */
export const ChangePasswordBody = z.strictObject({
  currentPassword: z.string().min(1, 'Enter your current password.').max(passwordMaxLength),
  newPassword: Password,
});
export type ChangePasswordBody = z.infer<typeof ChangePasswordBody>;

/** GET /v1/accounts/api-key: the key's hint (never the key) and when it was last used. */
export const ApiKeyInfo = z.object({
  hint: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;
