import type { ConditionType } from '@herald/contracts';
import type { ConditionCompiler } from './context.ts';
import { createdCompiler } from './conditions/created.ts';
import { emailActivityCompiler } from './conditions/email-activity.ts';
import { eventCompiler } from './conditions/event.ts';
import { fieldCompiler } from './conditions/field.ts';
import { formSubmittedCompiler } from './conditions/form-submitted.ts';
import { pageVisitedCompiler } from './conditions/page-visited.ts';
import { segmentCompiler } from './conditions/segment.ts';
import { statusCompiler } from './conditions/status.ts';
import { tagCompiler } from './conditions/tag.ts';

/** Every condition type's compiler: a type without one does not compile. */
export const conditionCompilers: { [T in ConditionType]: ConditionCompiler<T> } = {
  field: fieldCompiler,
  tag: tagCompiler,
  event: eventCompiler,
  emailActivity: emailActivityCompiler,
  segment: segmentCompiler,
  pageVisited: pageVisitedCompiler,
  formSubmitted: formSubmittedCompiler,
  created: createdCompiler,
  status: statusCompiler,
};
