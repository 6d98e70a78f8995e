import type { Config } from '../../config.ts';
import { effectiveStatus } from '../billing/billing.service.ts';

/** The account fields the AI writer's gate reads. */
export interface AccountStanding {
  status: string;
  blocked: boolean;
  trialEndsAt: Date;
}

export type AiWriterAccess = 'allowed' | 'notConfigured' | 'planInactive';

/**
 * Whether the account may use the AI writer: the server must have a provider (AI_BASE_URL and AI_API_KEY), and the
 * account must be in good standing. With BILLING_MODE=off every account is; with plans, a running trial and an
 * active plan are, and an expired trial, a canceled account or a blocked one are not.
 */
export function aiWriterAccess(
  config: Pick<Config, 'ai' | 'billing'>,
  account: AccountStanding,
  now: Date = new Date(),
): AiWriterAccess {
  if (!config.ai) return 'notConfigured';
  if (account.blocked) return 'planInactive';
  if (config.billing.mode === 'off') return 'allowed';
  const status = effectiveStatus(config.billing.mode, account.status, account.trialEndsAt, now.getTime());
  return status === 'trial' || status === 'active' ? 'allowed' : 'planInactive';
}

/** The account answer's flag canAccessAIWriter (docs/ai-writer.md). */
export function canAccessAIWriter(
  config: Pick<Config, 'ai' | 'billing'>,
  account: AccountStanding,
  now: Date = new Date(),
): boolean {
  return aiWriterAccess(config, account, now) === 'allowed';
}
