import { next, type StepHandler } from '../step-handler.ts';

/** Raise or lower the person's lead score. */
export const leadScoreHandler: StepHandler<'/lead-score'> = {
  label: 'Lead score',
  description: 'Raises or lowers the person’s lead score.',
  icon: 'IconTrophy',
  execute: (config) => next([{ kind: 'leadScore', change: config.change }]),
};
