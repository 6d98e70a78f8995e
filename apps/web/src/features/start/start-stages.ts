import type { onboardingActions } from '@herald/contracts';

export type OnboardingAction = (typeof onboardingActions)[number];

export interface StartStage {
  id: 'welcome' | OnboardingAction;
  label: string;
  title: string;
  description: string;
  steps: string[];
  link?: { label: string; to: string; isExternalSupport?: boolean };
  /** A second way in, shown beside the main link. */
  otherLink?: { label: string; to: string; isDocument?: boolean };
}

/** Quick-start stages (docs/web-app.md): welcome, import, apps, flow, help. */
export const startStages: StartStage[] = [
  {
    id: 'welcome',
    label: 'Welcome',
    title: 'Welcome to Herald',
    description:
      'Herald sends the right email to the right person at the right time. These four steps get your account ready to do that.',
    steps: [
      'Bring in the people you want to reach.',
      'Connect the apps that know what those people do.',
      'Build a flow that reacts to it.',
      'Know where to find help when you need it.',
    ],
  },
  {
    id: 'import',
    label: 'Import People',
    title: 'Import your people',
    description:
      'Start with the contacts you already have: customers, trial users or newsletter subscribers.',
    steps: [
      'Export a CSV file from your current tool or spreadsheet.',
      'Upload it and map its columns to person fields.',
      'Tag the imported people so you can target them in broadcasts and flows.',
    ],
    link: { label: 'Import a CSV file', to: '/people/imports/new' },
    otherLink: { label: 'Add people one by one', to: '/people' },
  },
  {
    id: 'apps',
    label: 'Connect Apps',
    title: 'Connect your apps',
    description:
      'Apps send Herald the events and data that trigger your flows, such as sign-ups, purchases and form submissions.',
    steps: [
      'Open the apps page and pick the tools you use.',
      'Add site tracking to follow page visits and forms.',
      'Check that new people and events arrive.',
    ],
    link: { label: 'Open apps', to: '/apps' },
    otherLink: { label: 'Set up site tracking', to: '/settings/site-tracking' },
  },
  {
    id: 'flow',
    label: 'Create Flow',
    title: 'Create your first flow',
    description: 'A flow is an automation: a trigger, then steps such as emails, waits, tags and conditions.',
    steps: [
      'Choose a trigger, for example "Person signs up".',
      'Add an email and a wait between messages.',
      'Turn the flow on when it looks right.',
    ],
    link: { label: 'Open flows', to: '/flows' },
  },
  {
    id: 'help',
    label: 'Get Help',
    title: 'Get help when you need it',
    description:
      'The help menu in the top bar has the quick start, the developer docs and, when configured, the support site.',
    steps: [
      'Open the question-mark menu at the top right.',
      'Read the developer docs to send data through the API.',
      'Contact support if something does not work as expected.',
    ],
    link: { label: 'Open the support site', to: '', isExternalSupport: true },
    otherLink: { label: 'Read the developer docs', to: '/v1/openapi.json', isDocument: true },
  },
];
