import { next, type StepHandler } from '../step-handler.ts';

/** Add a tag to the person. */
export const addTagHandler: StepHandler<'/add-tag'> = {
  label: 'Add tag',
  description: 'Adds a tag to the person.',
  icon: 'IconTag',
  execute: (config) => next([{ kind: 'addTag', tag: config.tag }]),
};

/** Remove a tag from the person. */
export const removeTagHandler: StepHandler<'/remove-tag'> = {
  label: 'Remove tag',
  description: 'Removes a tag from the person.',
  icon: 'IconTagOff',
  execute: (config) => next([{ kind: 'removeTag', tag: config.tag }]),
};
