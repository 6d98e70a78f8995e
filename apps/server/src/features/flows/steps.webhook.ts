import crypto from 'node:crypto';
import { webhookTriggerToken } from './flow-webhooks.service.ts';

/**
 * The inbound URL of a webhook trigger step, shown in its outputFields. Each step has its own random secret
 * (flow_steps.secret, never sent to the web app); the URL carries the token the inbound endpoint checks
 * (flow-webhooks.service.ts), so the address is the credential and a new secret revokes it. Callers may instead
 * sign each body with the header X-Herald-Signature.
 */
export function webhookTriggerUrl(publicUrl: string, stepId: number, secret: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1/hooks/flows/${stepId}?token=${webhookTriggerToken(secret, stepId)}`;
}

/** A new secret for a webhook trigger step. */
export function newWebhookSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}
