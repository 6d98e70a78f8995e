import { next, type StepHandler } from '../step-handler.ts';

/** Email a notification to team members; the runtime renders the person's merge tags into subject and body. */
export const notificationHandler: StepHandler<'/email-notification'> = {
  label: 'Notify team',
  description: 'Sends an email notification to team members.',
  icon: 'IconBell',
  execute: (config) => next([{ kind: 'notify', to: config.to, subject: config.subject, body: config.body }]),
};
