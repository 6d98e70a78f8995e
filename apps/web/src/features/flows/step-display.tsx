import {
  decodeInputFields,
  type CatalogueEntry,
  type InputFields,
  type StepType,
  type WaitConfig,
} from '@herald/contracts';
import {
  IconArchive,
  IconArrowsSplit,
  IconBell,
  IconBolt,
  IconBrandSlack,
  IconCalendarEvent,
  IconCalendarRepeat,
  IconCircleMinus,
  IconCirclePlus,
  IconClock,
  IconEdit,
  IconFilter,
  IconForms,
  IconHourglass,
  IconMail,
  IconMailOpened,
  IconPlayerStop,
  IconStar,
  IconTag,
  IconTagOff,
  IconUsersGroup,
  IconWebhook,
  IconWorld,
  type Icon,
} from '@tabler/icons-react';
import { describeNode } from '../segments/condition-text.ts';

/** Icons by operation key; the catalogue's own icon names are for other clients. */
const icons: Record<string, Icon> = {
  '/entered-segment': IconUsersGroup,
  '/left-segment': IconUsersGroup,
  '/added-tag': IconTag,
  '/removed-tag': IconTagOff,
  '/event': IconBolt,
  '/email-trigger': IconMailOpened,
  '/dateFieldTrigger': IconCalendarEvent,
  '/annualTrigger': IconCalendarRepeat,
  '/time': IconClock,
  '/page-visited-trigger': IconWorld,
  '/site-form-submitted': IconForms,
  '/submitted-form': IconForms,
  '/webhook-trigger': IconWebhook,
  '/send': IconMail,
  '/delay': IconHourglass,
  '/delay-v2': IconHourglass,
  '/change-field': IconEdit,
  '/add-tag': IconTag,
  '/remove-tag': IconTagOff,
  '/ab-test': IconArrowsSplit,
  '/email-notification': IconBell,
  '/send-webhook': IconWebhook,
  '/lead-score': IconStar,
  '/archive-person': IconArchive,
  '/end-flow': IconPlayerStop,
  '/slack-notification': IconBrandSlack,
  '/check-email-activity': IconFilter,
  '/check-field': IconFilter,
  '/in-segment': IconFilter,
  '/visited-page': IconFilter,
  '/has-tag': IconFilter,
};

/** Colours of the three kinds of step, so a trigger, an action and a filter read apart at a glance. */
export const stepTypeColors: Record<StepType, string> = {
  trigger: 'grape',
  action: 'indigo',
  filter: 'orange',
};
export const stepTypeLabels: Record<StepType, string> = {
  trigger: 'Trigger',
  action: 'Action',
  filter: 'Filter',
};

export function StepIcon({ operationKey, size = 18 }: { operationKey: string; size?: number }) {
  const Component = icons[operationKey] ?? (operationKey.startsWith('/') ? IconCirclePlus : IconCircleMinus);
  return <Component size={size} aria-hidden />;
}

/** The catalogue's label of an operation, else the key itself (an unknown step still shows what it is). */
export function stepLabel(operationKey: string, catalogue: Map<string, CatalogueEntry>): string {
  return catalogue.get(operationKey)?.display.label ?? operationKey.replace(/^\//, '');
}

/** Names of what steps refer to, for their summaries. */
export interface StepNames {
  segment: (id: number) => string;
  email: (id: number) => string;
  field: (name: string) => string;
}

const plural = (n: number, unit: string) => `${n} ${n === 1 ? unit.replace(/s$/, '') : unit}`;
const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function describeWait(wait: WaitConfig): string {
  if (wait.mode === 'duration')
    return wait.amount === 0 ? 'Go on at once' : `Wait ${plural(wait.amount, wait.unit)}`;
  if (wait.mode === 'until')
    return `Wait until ${new Date(wait.at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`;
  const days =
    wait.days.length === 7
      ? 'any day'
      : [...wait.days]
          .sort()
          .map((d) => weekdays[d])
          .join(', ');
  return `Wait until ${days}, ${wait.from}–${wait.to} their time`;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const idOf = (value: unknown) =>
  value && typeof value === 'object' && 'id' in value && typeof value.id === 'number' ? value.id : null;

/**
 * One line saying what a step does with its settings ("Tag added: trial", "Wait 2 days"), the node's subtitle
 * and the drawer's. Null when the step has no settings yet.
 */
export function summariseStep(
  operationKey: string,
  inputFields: InputFields,
  names: StepNames,
): string | null {
  const c = decodeInputFields(inputFields);
  const segment = idOf(c.segment);
  const email = idOf(c.email);
  switch (operationKey) {
    case '/entered-segment':
      return segment ? `Enters ${names.segment(segment)}` : null;
    case '/left-segment':
      return segment ? `Leaves ${names.segment(segment)}` : null;
    case '/in-segment':
      return segment ? `Is in ${names.segment(segment)}?` : null;
    case '/added-tag':
    case '/add-tag':
      return text(c.tag) ? `Tag “${text(c.tag)}”` : null;
    case '/removed-tag':
    case '/remove-tag':
      return text(c.tag) ? `Untag “${text(c.tag)}”` : null;
    case '/has-tag':
      return text(c.tag) ? `Has tag “${text(c.tag)}”?` : null;
    case '/event':
      return text(c.name) ? `Event “${text(c.name)}”` : null;
    case '/email-trigger':
      return text(c.activity)
        ? `${text(c.activity).replace(/^./, (s) => s.toUpperCase())} ${email ? names.email(email) : 'any email'}`
        : null;
    case '/dateFieldTrigger': {
      if (!text(c.field)) return null;
      const offset =
        typeof c.offsetDays === 'number' && c.offsetDays !== 0
          ? `${plural(Math.abs(c.offsetDays), 'days')} ${c.offsetDays > 0 ? 'after' : 'before'} `
          : 'On ';
      return `${offset}${names.field(text(c.field))} at ${text(c.time)}`;
    }
    case '/annualTrigger':
      return text(c.field) ? `Every year on ${names.field(text(c.field))} at ${text(c.time)}` : null;
    case '/time':
      return text(c.at)
        ? `${new Date(text(c.at)).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}${segment ? ` · ${names.segment(segment)}` : ''}`
        : null;
    case '/page-visited-trigger':
      return text(c.url) ? `Visits ${text(c.url)}` : null;
    case '/site-form-submitted':
    case '/submitted-form':
      return text(c.form) ? `Form “${text(c.form)}”` : 'Any form';
    case '/webhook-trigger':
      return 'A call to its own signed URL';
    case '/send':
      return email ? names.email(email) : null;
    case '/delay':
      return typeof c.amount === 'number' ? `Wait ${plural(c.amount, text(c.unit) || 'days')}` : null;
    case '/delay-v2':
      return c.wait && typeof c.wait === 'object' && 'mode' in c.wait
        ? describeWait(c.wait as WaitConfig)
        : null;
    case '/change-field':
      return text(c.field)
        ? `Set ${names.field(text(c.field))} to ${c.value === null || c.value === undefined || c.value === '' ? 'empty' : String(c.value as string)}`
        : null;
    case '/ab-test': {
      const variants = Array.isArray(c.variants) ? (c.variants as { name: string; weight: number }[]) : [];
      return variants.length ? variants.map((v) => `${v.name} ${v.weight}%`).join(' · ') : null;
    }
    case '/email-notification':
      return Array.isArray(c.to) && c.to.length ? `To ${(c.to as string[]).join(', ')}` : null;
    case '/send-webhook':
      return text(c.url) ? `POST ${text(c.url)}` : null;
    case '/lead-score':
      return typeof c.change === 'number' ? `${c.change >= 0 ? '+' : ''}${c.change} points` : null;
    case '/archive-person':
      return 'Archive the person';
    case '/end-flow':
      return 'The person leaves the flow';
    case '/slack-notification':
      return text(c.text) ? `Slack: ${text(c.text)}` : null;
    case '/check-email-activity':
    case '/check-field':
    case '/visited-page':
      return c.condition && typeof c.condition === 'object'
        ? describeNode(c.condition as Parameters<typeof describeNode>[0], {
            segment: names.segment,
            field: names.field,
          })
        : null;
    default:
      return null;
  }
}
