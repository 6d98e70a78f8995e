import { next, type StepHandler } from '../step-handler.ts';

/** Set one of the person's fields to a value (null clears it). */
export const changeFieldHandler: StepHandler<'/change-field'> = {
  label: 'Change field',
  description: 'Sets a field of the person to a value.',
  icon: 'IconForms',
  execute: (config) => next([{ kind: 'changeField', field: config.field, value: config.value }]),
};
