import { next, type StepHandler } from '../step-handler.ts';

/** Post a message to the account's connected Slack channel; the runtime fills the person's merge tags. */
export const slackHandler: StepHandler<'/slack-notification'> = {
  label: 'Send Slack message',
  description: 'Posts a message to the Slack channel connected under Apps.',
  icon: 'IconBrandSlack',
  execute: (config) => next([{ kind: 'slack', text: config.text }]),
};
