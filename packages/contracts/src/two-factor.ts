import { z } from 'zod';
import { Account } from './accounts.ts';
import { passwordMaxLength } from './registration.ts';

/** Messages of two-factor sign-in (docs/team-and-accounts.md, "Two-factor sign-in"). */
export const twoFactorMessages = {
  wrongCode: "That code isn't right. Check your authenticator app and try again.",
  reusedCode: 'That code was already used. Wait for the next one in your authenticator app.',
  wrongRecoveryCode: "That recovery code isn't right or was already used.",
  wrongCodeOrPassword: "That code or password isn't right.",
  pendingExpired: 'Your sign-in has expired. Log in again.',
  notEnrolling: 'Start two-factor setup again: no setup is waiting for a code.',
  alreadyEnabled: 'Two-factor sign-in is already on.',
  notEnabled: 'Two-factor sign-in is off.',
  requiredByAccount: 'An account you belong to requires two-factor sign-in, so it cannot be turned off.',
  enableForYourselfFirst: 'Turn on two-factor sign-in for yourself before requiring it of the team.',
  apiKeyRefused: 'Two-factor sign-in is changed from the app, not with an API key.',
  enabled: '✅ Two-factor sign-in is on.',
  disabled: 'Two-factor sign-in is off.',
  newRecoveryCodes: '✅ New recovery codes made. The old ones no longer work.',
  policySaved: '✅ Team sign-in policy saved.',
  policyFailed: "Couldn't save the team sign-in policy.",
  setupFailed: "Couldn't start two-factor setup.",
  couldNotLoad: "Couldn't load your two-factor settings.",
} as const;

/** A code from an authenticator app: six digits (spaces the user typed are dropped). */
export const TotpCode = z
  .string()
  .max(20)
  .transform((code) => code.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app.'));

/** A recovery code as shown (xxxxx-xxxxx); case, spaces and dashes do not matter. */
export const RecoveryCode = z.string().trim().min(1, 'Enter a recovery code.').max(40);

/** What a first factor (password, Google, a reset, an invitation) answers when a second one must follow. */
export const SecondFactorChallenge = z.object({
  /** code: sign in with a code or a recovery code; enrol: the account requires two-factor, set it up first. */
  secondFactor: z.enum(['code', 'enrol']),
});
export type SecondFactorChallenge = z.infer<typeof SecondFactorChallenge>;

/** The answer of a sign-in: the account, or the second factor still to give. */
export const SignInResponse = z.union([Account, SecondFactorChallenge]);
export type SignInResponse = z.infer<typeof SignInResponse>;

/** POST /v1/accounts/login/two-factor: a code or a recovery code, after the password. */
export const SecondFactorBody = z
  .strictObject({
    code: TotpCode.optional(),
    recoveryCode: RecoveryCode.optional(),
    rememberDevice: z.boolean().optional(),
  })
  .refine((b) => (b.code === undefined) !== (b.recoveryCode === undefined), {
    message: 'Send either a code or a recovery code.',
    path: ['code'],
  });
export type SecondFactorBody = z.infer<typeof SecondFactorBody>;

/** A new secret to add to an authenticator app: the QR code, and the secret as text for typing in. */
export const TwoFactorSetup = z.object({
  secret: z.string(),
  otpauthUrl: z.string(),
  /** An SVG image of the QR code, as a data: URL. */
  qrCode: z.string(),
});
export type TwoFactorSetup = z.infer<typeof TwoFactorSetup>;

export const ConfirmTwoFactorBody = z.strictObject({
  code: TotpCode,
  rememberDevice: z.boolean().optional(),
});

/** The ten recovery codes, shown once. */
export const RecoveryCodes = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof RecoveryCodes>;

/** POST /v1/accounts/login/two-factor/confirm: enrolment done during sign-in starts the session. */
export const EnrolledSignIn = RecoveryCodes.extend({ account: Account });

/** POST /v1/profile/two-factor/disable: a code (or a recovery code), or the password. */
export const DisableTwoFactorBody = z
  .strictObject({
    code: z.string().trim().min(1).max(40).optional(),
    password: z.string().min(1).max(passwordMaxLength).optional(),
  })
  .refine((b) => b.code !== undefined || b.password !== undefined, {
    message: 'Enter a code from your authenticator app, a recovery code or your password.',
    path: ['code'],
  });

/** GET /v1/profile/two-factor */
export const TwoFactorStatus = z.object({
  enabled: z.boolean(),
  enabledAt: z.string().nullable(),
  recoveryCodesLeft: z.number().int(),
  /** The current account requires two-factor of every member. */
  requiredByAccount: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof TwoFactorStatus>;

/** PUT /v1/accounts/two-factor-policy */
export const TwoFactorPolicy = z.strictObject({ required: z.boolean() });
export type TwoFactorPolicy = z.infer<typeof TwoFactorPolicy>;
