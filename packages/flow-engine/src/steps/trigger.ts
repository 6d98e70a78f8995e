import { flowMessages, type TriggerOperation } from '@herald/contracts';
import { next, type StepHandler } from '../step-handler.ts';

/**
 * Triggers: a run is created at its trigger step (by the runtime, when the event happened), so executing a trigger
 * only records it and goes on along its link. Its configuration chose who entered; it is not checked again here,
 * so a trigger edited while people are in the flow does not stop them.
 */
const trigger = (
  label: string,
  description: string,
  icon: string,
  invalidConfig?: string,
): StepHandler<TriggerOperation> => ({
  label,
  description,
  icon,
  ...(invalidConfig ? { invalidConfig } : {}),
  isEntryOnly: true,
  execute: () => next(),
});

export const triggerHandlers: { [K in TriggerOperation]: StepHandler<K> } = {
  '/entered-segment': trigger('Entered segment', 'Starts when a person enters a segment.', 'IconChartPie'),
  '/left-segment': trigger('Left segment', 'Starts when a person leaves a segment.', 'IconChartPieOff'),
  '/added-tag': trigger('Tag added', 'Starts when a tag is added to a person.', 'IconTag'),
  '/removed-tag': trigger('Tag removed', 'Starts when a tag is removed from a person.', 'IconTagOff'),
  '/event': trigger('Event', 'Starts when a person performs an event.', 'IconBolt'),
  '/email-trigger': trigger(
    'Email activity',
    'Starts when a person opens, clicks or otherwise acts on an email.',
    'IconMailOpened',
  ),
  '/dateFieldTrigger': trigger(
    'Date field',
    'Starts on the date in a date field, or some days before or after it.',
    'IconCalendarEvent',
    flowMessages.noDateTime,
  ),
  '/annualTrigger': trigger(
    'Anniversary',
    'Starts every year on the anniversary of a date field, such as a birthday.',
    'IconCake',
    flowMessages.noDateTime,
  ),
  '/time': trigger(
    'Time',
    'Starts once, at a date and time, for everyone in a segment.',
    'IconClock',
    flowMessages.noDateTime,
  ),
  '/page-visited-trigger': trigger(
    'Page visited',
    'Starts when a person visits a page of your site.',
    'IconWorldWww',
  ),
  '/site-form-submitted': trigger(
    'Site form submitted',
    'Starts when a person submits a form on your site.',
    'IconForms',
  ),
  '/submitted-form': trigger(
    'Form submitted',
    'Starts when a form submission arrives through the API.',
    'IconClipboardText',
  ),
  '/webhook-trigger': trigger(
    'Webhook received',
    'Starts when your system calls this step’s signed URL.',
    'IconWebhook',
  ),
};
