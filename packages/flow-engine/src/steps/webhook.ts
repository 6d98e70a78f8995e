import { next, type StepHandler } from '../step-handler.ts';

/** Call a URL with the person's data; the runtime refuses private addresses when it resolves the host. */
export const webhookHandler: StepHandler<'/send-webhook'> = {
  label: 'Send webhook',
  description: 'Posts the person’s data to a URL.',
  icon: 'IconWebhook',
  execute: (config) => next([{ kind: 'webhook', url: config.url }]),
};
