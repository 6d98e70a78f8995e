import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { forbidden, unauthorized } from '../../http/errors.ts';
import { route, type RouteDef } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { recordAll, type Feedback } from './feedback.service.ts';
import { logOutcome } from './inbound-smtp.ts';
import {
  basicAuthValid,
  fromMailgun,
  fromPostmark,
  fromSendgrid,
  fromSes,
  MailgunBody,
  mailgunSignatureValid,
  sendgridSignatureValid,
} from './providers.ts';
import { createSnsVerifier, SnsMessage, snsUrl, type SnsVerifier } from './sns.ts';

const WebhookAnswer = z.object({ received: z.number().int(), recorded: z.number().int() });

export interface WebhookOptions {
  /** Checks SNS signatures; its certificate source is the only thing tests replace (the host check stays). */
  sns?: SnsVerifier;
  /** Confirms an SNS subscription by visiting its SubscribeURL (an SNS host over HTTPS only). */
  confirmSubscription?: (url: URL) => Promise<void>;
}

const visitSubscribeUrl = async (url: URL) => {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`SNS answered ${response.status} to the subscription confirmation`);
};

function readJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function record(services: Services, request: FastifyRequest, provider: string, reports: Feedback[]) {
  const outcomes = await recordAll(services, reports);
  outcomes.forEach((outcome) =>
    logOutcome((line, detail) => request.log.info({ ...detail }, line), provider, outcome),
  );
  return { received: reports.length, recorded: outcomes.filter((o) => o.status === 'recorded').length };
}

/**
 * Provider webhooks for bounces and complaints. Each is public and signed its own way; a request that is not
 * signed with the configured key is refused (401) before anything is read from it, and a provider that has no
 * key configured is refused (403). Reports for messages Herald did not send are answered 200 and logged, so the
 * provider does not retry them.
 */
export function webhookRoutes(options: WebhookOptions = {}): RouteDef[] {
  const sns = options.sns ?? createSnsVerifier();
  const confirm = options.confirmSubscription ?? visitSubscribeUrl;
  return [
    route({
      method: 'POST',
      url: '/v1/webhooks/bounces/ses',
      auth: 'public',
      csrf: false,
      rawBody: true,
      tenant: false,
      response: WebhookAnswer,
      summary: 'Amazon SES bounce and complaint notifications through an SNS HTTPS subscription',
      handler: async ({ services, request }) => {
        const topics = services.config.bounces.sesTopicArns;
        if (!topics.length)
          throw forbidden('The Amazon SES webhook is not configured: set SES_SNS_TOPIC_ARNS.');
        const parsed = SnsMessage.safeParse(readJson(request.body));
        if (!parsed.success) throw unauthorized('Not a signed Amazon SNS message.');
        const message = parsed.data;
        if (!topics.includes(message.TopicArn))
          throw forbidden('Notifications from this SNS topic are not accepted.');
        if (!(await sns.verify(message))) throw unauthorized('The SNS signature does not verify.');
        if (message.Type === 'SubscriptionConfirmation') {
          const url = snsUrl(message.SubscribeURL, 'subscribe');
          if (!url) throw forbidden('The subscription URL is not an Amazon SNS address.');
          await confirm(url);
          request.log.info({ topic: message.TopicArn }, 'SNS subscription confirmed');
          return { received: 0, recorded: 0 };
        }
        if (message.Type === 'UnsubscribeConfirmation') {
          request.log.warn({ topic: message.TopicArn }, 'SNS subscription ended');
          return { received: 0, recorded: 0 };
        }
        return record(services, request, 'ses', fromSes(message.Message));
      },
    }),
    route({
      method: 'POST',
      url: '/v1/webhooks/bounces/postmark',
      auth: 'public',
      csrf: false,
      rawBody: true,
      tenant: false,
      response: WebhookAnswer,
      summary: 'Postmark bounce and spam complaint webhooks (HTTP basic auth)',
      handler: async ({ services, request }) => {
        const expected = services.config.bounces.postmarkAuth;
        if (!expected) throw forbidden('The Postmark webhook is not configured: set POSTMARK_WEBHOOK_AUTH.');
        if (!basicAuthValid(expected, request.headers.authorization))
          throw unauthorized('Wrong or missing webhook credentials.');
        return record(services, request, 'postmark', await fromPostmark(readJson(request.body)));
      },
    }),
    route({
      method: 'POST',
      url: '/v1/webhooks/bounces/sendgrid',
      auth: 'public',
      csrf: false,
      rawBody: true,
      tenant: false,
      response: WebhookAnswer,
      bodyLimit: 8 * 1024 * 1024,
      summary: 'SendGrid signed event webhook (bounce, deferred, spamreport)',
      handler: async ({ services, request }) => {
        const key = services.config.bounces.sendgridPublicKey;
        if (!key) throw forbidden('The SendGrid webhook is not configured: set SENDGRID_WEBHOOK_PUBLIC_KEY.');
        const raw = typeof request.body === 'string' ? request.body : '';
        const signature = request.headers['x-twilio-email-event-webhook-signature'];
        const timestamp = request.headers['x-twilio-email-event-webhook-timestamp'];
        if (
          !sendgridSignatureValid(
            key,
            raw,
            typeof signature === 'string' ? signature : undefined,
            typeof timestamp === 'string' ? timestamp : undefined,
          )
        ) {
          throw unauthorized('The SendGrid signature does not verify.');
        }
        return record(services, request, 'sendgrid', fromSendgrid(readJson(raw)));
      },
    }),
    route({
      method: 'POST',
      url: '/v1/webhooks/bounces/mailgun',
      auth: 'public',
      csrf: false,
      rawBody: true,
      tenant: false,
      response: WebhookAnswer,
      summary: 'Mailgun failed and complained webhooks (HMAC-SHA256 signature in the body)',
      handler: async ({ services, request }) => {
        const key = services.config.bounces.mailgunSigningKey;
        if (!key) throw forbidden('The Mailgun webhook is not configured: set MAILGUN_WEBHOOK_SIGNING_KEY.');
        const parsed = MailgunBody.safeParse(readJson(request.body));
        if (!parsed.success || !mailgunSignatureValid(key, parsed.data))
          throw unauthorized('The Mailgun signature does not verify.');
        return record(services, request, 'mailgun', fromMailgun(parsed.data));
      },
    }),
  ];
}

export const bouncesRoutes = webhookRoutes();
