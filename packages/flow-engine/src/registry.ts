import type { OperationKey } from '@herald/contracts';
import type { StepHandler } from './step-handler.ts';
import { abTestHandler } from './steps/ab-test.ts';
import { archivePersonHandler } from './steps/archive-person.ts';
import { changeFieldHandler } from './steps/change-field.ts';
import { delayHandler, delayV2Handler } from './steps/delay.ts';
import { endFlowHandler } from './steps/end-flow.ts';
import { filterHandlers } from './steps/filters.ts';
import { leadScoreHandler } from './steps/lead-score.ts';
import { notificationHandler } from './steps/notification.ts';
import { sendHandler } from './steps/send.ts';
import { slackHandler } from './steps/slack.ts';
import { addTagHandler, removeTagHandler } from './steps/tags.ts';
import { triggerHandlers } from './steps/trigger.ts';
import { webhookHandler } from './steps/webhook.ts';

/** Every operation's handler: an operation key without one does not compile. */
export const stepHandlers: { [K in OperationKey]: StepHandler<K> } = {
  ...triggerHandlers,
  '/send': sendHandler,
  '/delay': delayHandler,
  '/delay-v2': delayV2Handler,
  '/change-field': changeFieldHandler,
  '/add-tag': addTagHandler,
  '/remove-tag': removeTagHandler,
  '/ab-test': abTestHandler,
  '/email-notification': notificationHandler,
  '/send-webhook': webhookHandler,
  '/lead-score': leadScoreHandler,
  '/archive-person': archivePersonHandler,
  '/end-flow': endFlowHandler,
  '/slack-notification': slackHandler,
  ...filterHandlers,
};

/** The handler of an operation, with its configuration type widened (advance validates the config first). */
export function handlerOf(key: OperationKey): StepHandler {
  return stepHandlers[key] as unknown as StepHandler;
}

/** Wait steps (/delay, /delay-v2). */
export const isWaitOperation = (key: OperationKey): key is '/delay' | '/delay-v2' =>
  key === '/delay' || key === '/delay-v2';
