import { z } from 'zod';
import { ScopeStateSchema } from './accounts.ts';

/** Messages of single sign-on with OpenID Connect (docs/team-and-accounts.md, "Single sign-on"). */
export const ssoMessages = {
  noConnection: 'Single sign-on is not set up for this account.',
  noDomain: 'No single sign-on is set up for that email domain. Sign in with your password instead.',
  domainTaken: 'Another account already signs in with single sign-on for that domain.',
  issuerUnreachable:
    "Herald could not read the identity provider's configuration at that issuer URL (/.well-known/openid-configuration).",
  issuerRefused: 'The issuer URL must be a public https:// address.',
  secretRequired: 'Enter the client secret.',
  attemptExpired: 'Your single sign-on attempt expired or was started in another browser. Start again.',
  answerRefused: "The identity provider's answer could not be verified. Start single sign-on again.",
  providerError: 'The identity provider refused the sign-in.',
  providerDown: 'The identity provider could not be reached. Try again in a few minutes.',
  noEmail: 'The identity provider did not give a verified email address.',
  domainNotAllowed: "Your email's domain is not one this account signs in with single sign-on.",
  ssoRequired:
    'Your organisation signs in with single sign-on. Use "Sign in with SSO" with your work email instead of a password.',
  apiKeyRefused: 'Single sign-on is set up from the app, not with an API key.',
  saved: '✅ Single sign-on saved.',
  removed: 'Single sign-on removed.',
  couldNotLoad: "Couldn't load the single sign-on settings.",
} as const;

/** An email domain: lower case, at least one dot, labels of letters, digits and hyphens. */
export const SsoDomain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    'Enter a domain such as example.com.',
  );

/** The account's connection as its settings show it; the client secret is never answered. */
export const SsoSettings = z.object({
  issuer: z.string(),
  clientId: z.string(),
  hasClientSecret: z.boolean(),
  domains: z.array(z.string()),
  defaultScopes: z.array(ScopeStateSchema),
  requireSso: z.boolean(),
  updatedAt: z.string(),
});
export type SsoSettings = z.infer<typeof SsoSettings>;

/** GET /v1/accounts/sso: the connection (null when none) and the address to register at the provider. */
export const SsoSettingsResponse = z.object({
  connection: SsoSettings.nullable(),
  redirectUri: z.string(),
});
export type SsoSettingsResponse = z.infer<typeof SsoSettingsResponse>;

/** PUT /v1/accounts/sso: the secret may be left out to keep the stored one. */
export const SaveSsoBody = z.strictObject({
  issuer: z.string().trim().min(1, 'Enter the issuer URL.').max(500).url('Enter the issuer as a full URL.'),
  clientId: z.string().trim().min(1, 'Enter the client id.').max(500),
  clientSecret: z.string().min(1, 'Enter the client secret.').max(2000).optional(),
  domains: z
    .array(SsoDomain)
    .min(1, 'Add at least one email domain.')
    .max(20, 'At most 20 domains.')
    .refine((list) => new Set(list).size === list.length, 'A domain is listed twice.'),
  defaultScopes: z.array(ScopeStateSchema).max(50),
  requireSso: z.boolean(),
});
export type SaveSsoBody = z.infer<typeof SaveSsoBody>;

/** POST /v1/accounts/login/sso: the work email whose domain picks the account. */
export const StartSsoBody = z.strictObject({
  email: z.string().trim().min(3, 'Enter your work email.').max(320).email('Enter your work email.'),
});
export const StartSsoResponse = z.object({ redirectUrl: z.string() });

/** POST /v1/accounts/login/sso/callback: the query string the provider sent the browser back with. */
export const SsoCallbackBody = z.strictObject({
  query: z.string().min(1, 'The provider sent no answer.').max(8000),
});
