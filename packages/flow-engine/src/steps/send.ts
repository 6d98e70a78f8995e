import { flowMessages } from '@herald/contracts';
import { next, type StepHandler } from '../step-handler.ts';

/** Send an email: the runtime turns the effect into a delivery of the pipeline, keyed by the effect's key. */
export const sendHandler: StepHandler<'/send'> = {
  label: 'Send email',
  description: 'Sends one of your emails to the person.',
  icon: 'IconMail',
  invalidConfig: flowMessages.noEmail,
  execute: (config) => next([{ kind: 'send', emailId: config.email.id }]),
};
