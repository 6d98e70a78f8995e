import type { StepHandler } from '../step-handler.ts';

/** End the run here, whatever links follow. */
export const endFlowHandler: StepHandler<'/end-flow'> = {
  label: 'End flow',
  description: 'Ends the flow for the person.',
  icon: 'IconPlayerStop',
  execute: () => ({ kind: 'end', effects: [] }),
};
