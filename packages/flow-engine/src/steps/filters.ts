import type { FilterOperation } from '@herald/contracts';
import { next, type StepHandler } from '../step-handler.ts';

/**
 * Filters: the answer is computed by the runtime, set-wise in the database, and handed to advance as a fact;
 * the run goes on along the 'yes' or 'no' link.
 */
const filter = (label: string, description: string, icon: string): StepHandler<FilterOperation> => ({
  label,
  description,
  icon,
  execute: (_config, { fact }) => next([], fact ? 'yes' : 'no'),
});

export const filterHandlers: { [K in FilterOperation]: StepHandler<K> } = {
  '/check-email-activity': filter(
    'Check email activity',
    'Branches on whether the person opened, clicked or received an email.',
    'IconMailQuestion',
  ),
  '/check-field': filter('Check field', 'Branches on the value of a field.', 'IconListCheck'),
  '/in-segment': filter('Is in segment', 'Branches on whether the person is in a segment.', 'IconChartPie'),
  '/visited-page': filter(
    'Has visited page',
    'Branches on whether the person visited a page.',
    'IconWorldWww',
  ),
  '/has-tag': filter('Has tag', 'Branches on whether the person has a tag.', 'IconTags'),
};
