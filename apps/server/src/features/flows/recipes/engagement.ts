import {
  emailRef,
  greeting,
  recipeHtml,
  segmentRef,
  sendStep,
  step,
  waitStep,
  type Recipe,
} from './recipe-types.ts';

const violet = '#7048e8';
const green = '#2b8a3e';
const pink = '#d6336c';

/** People gone quiet: a friendly check-in, a last chance, then a tag so they can be left out of sends. */
export const reEngagement: Recipe = {
  id: 're-engagement',
  name: 'Re-engagement',
  description:
    'Win back people who stopped opening your emails: a check-in, a last chance a week later, and the tag “inactive” for those who still do not click, so you can leave them out of broadcasts.',
  category: 'Re-engagement',
  trigger: 'Enters the automatic segment “Need some love”',
  toChoose: [],
  reentryDays: 90,
  emails: [
    {
      key: 'miss-you',
      name: 'Re-engagement: 1. We miss you',
      subject: 'Still interested, {{ person.firstName | default: "friend" }}?',
      preheader: 'One click tells us to keep writing.',
      html: recipeHtml(
        'We miss you',
        violet,
        [
          `<h1>It has been a while, ${greeting}</h1>`,
          'We noticed you have not opened our emails for some time. That is fine: inboxes get busy.',
          'If you still want to hear from {{ account.name }}, click below and we will keep you on the list. Here is what you missed lately, too.',
        ],
        { label: 'Yes, keep me posted' },
      ),
    },
    {
      key: 'last-chance',
      name: 'Re-engagement: 2. Last chance',
      subject: 'Should we stop writing?',
      preheader: 'We only want to email people who want it.',
      html: recipeHtml(
        'Last chance',
        violet,
        [
          `<h1>Should we stop, ${greeting}?</h1>`,
          'We would rather send fewer emails to people who read them than fill inboxes. If you do not click below, we will stop sending you our regular emails.',
          'You can always come back: our door stays open.',
        ],
        { label: 'Keep me on the list' },
      ),
    },
  ],
  steps: [
    step('trigger', '/entered-segment', { segment: { id: segmentRef('needSomeLove') } }, 0, 0),
    sendStep('send-miss-you', 'miss-you', 0, 1),
    waitStep('wait-7', 7, 'days', 0, 2),
    step(
      'clicked-1',
      '/check-email-activity',
      {
        condition: {
          type: 'emailActivity',
          activity: 'clicked',
          performed: true,
          subject: { type: 'email', id: emailRef('miss-you') },
          window: { type: 'ever' },
        },
      },
      0,
      3,
    ),
    step('tag-back', '/add-tag', { tag: 're-engaged' }, -1, 4),
    sendStep('send-last-chance', 'last-chance', 1, 4),
    waitStep('wait-7b', 7, 'days', 1, 5),
    step(
      'clicked-2',
      '/check-email-activity',
      {
        condition: {
          type: 'emailActivity',
          activity: 'clicked',
          performed: true,
          subject: { type: 'email', id: emailRef('last-chance') },
          window: { type: 'ever' },
        },
      },
      1,
      6,
    ),
    step('tag-inactive', '/add-tag', { tag: 'inactive' }, 2, 7),
  ],
  links: [
    { from: 'trigger', to: 'send-miss-you' },
    { from: 'send-miss-you', to: 'wait-7' },
    { from: 'wait-7', to: 'clicked-1' },
    { from: 'clicked-1', to: 'tag-back', condition: 'yes' },
    { from: 'clicked-1', to: 'send-last-chance', condition: 'no' },
    { from: 'send-last-chance', to: 'wait-7b' },
    { from: 'wait-7b', to: 'clicked-2' },
    { from: 'clicked-2', to: 'tag-back', condition: 'yes' },
    { from: 'clicked-2', to: 'tag-inactive', condition: 'no' },
  ],
};

/** Registration confirmed at once, reminders at the times the user picks, and the recording afterwards. */
export const webinarReminders: Recipe = {
  id: 'webinar-reminders',
  name: 'Webinar reminders',
  description:
    'Confirm a webinar registration at once, remind people the day before and an hour before, and send the recording afterwards. Add the tag “webinar” to register someone.',
  category: 'Events',
  trigger: 'Tag added: webinar',
  toChoose: [
    'The date and time of each “Wait until” step: the day before, an hour before, and the day after your webinar.',
  ],
  emails: [
    {
      key: 'confirmed',
      name: 'Webinar reminders: 1. You are registered',
      subject: 'You are registered for our webinar',
      preheader: 'Save the date: the link is inside.',
      html: recipeHtml(
        'You are registered',
        green,
        [
          `<h1>See you there, ${greeting}!</h1>`,
          'Your seat at our live webinar is booked. Add it to your calendar now so it does not slip: we will also remind you the day before and an hour before we start.',
          'Bring your questions. The last fifteen minutes are for them.',
        ],
        { label: 'Add to my calendar' },
      ),
    },
    {
      key: 'tomorrow',
      name: 'Webinar reminders: 2. Tomorrow',
      subject: 'Tomorrow: our live webinar',
      preheader: 'A quick reminder, and one thing to prepare.',
      html: recipeHtml(
        'Tomorrow',
        green,
        [
          `<h1>It is tomorrow, ${greeting}</h1>`,
          'A quick reminder that our webinar is tomorrow. If you want to get the most out of it, write down one question you would like answered: we will take as many as we can live.',
        ],
        { label: 'Join link' },
      ),
    },
    {
      key: 'starting',
      name: 'Webinar reminders: 3. Starting in an hour',
      subject: 'We start in one hour',
      preheader: 'Here is your link to join.',
      html: recipeHtml(
        'Starting soon',
        green,
        [
          `<h1>One hour to go, ${greeting}</h1>`,
          'We go live in an hour. The link below opens the room: no download needed, it works in your browser.',
        ],
        { label: 'Join the webinar' },
      ),
    },
    {
      key: 'recording',
      name: 'Webinar reminders: 4. The recording',
      subject: 'The recording of our webinar',
      preheader: 'Watch it again, or for the first time.',
      html: recipeHtml(
        'The recording',
        green,
        [
          `<h1>Thanks for registering, ${greeting}</h1>`,
          'Whether you joined us live or could not make it, the full recording is ready, with the slides and the answers to every question we did not have time for.',
        ],
        { label: 'Watch the recording' },
      ),
    },
  ],
  steps: [
    step('trigger', '/added-tag', { tag: 'webinar' }, 0, 0),
    sendStep('send-confirmed', 'confirmed', 0, 1),
    step('until-day-before', '/delay-v2', { wait: { mode: 'until' } }, 0, 2),
    sendStep('send-tomorrow', 'tomorrow', 0, 3),
    step('until-hour-before', '/delay-v2', { wait: { mode: 'until' } }, 0, 4),
    sendStep('send-starting', 'starting', 0, 5),
    step('until-day-after', '/delay-v2', { wait: { mode: 'until' } }, 0, 6),
    sendStep('send-recording', 'recording', 0, 7),
  ],
  links: [
    { from: 'trigger', to: 'send-confirmed' },
    { from: 'send-confirmed', to: 'until-day-before' },
    { from: 'until-day-before', to: 'send-tomorrow' },
    { from: 'send-tomorrow', to: 'until-hour-before' },
    { from: 'until-hour-before', to: 'send-starting' },
    { from: 'send-starting', to: 'until-day-after' },
    { from: 'until-day-after', to: 'send-recording' },
  ],
};

/** Every year on a person's birthday, at 9:00 their time. */
export const birthday: Recipe = {
  id: 'birthday',
  name: 'Birthday',
  description:
    'Wish people a happy birthday every year at 9:00 in their time zone, with a small gift. Reads the date field “Birthday” (created with the flow when you have none).',
  category: 'Customers',
  trigger: 'Every year on the date in “Birthday”',
  toChoose: [],
  // Once a year: a person may enter again after 300 days.
  reentryDays: 300,
  fields: [{ name: 'birthday', title: 'Birthday', type: 'date' }],
  emails: [
    {
      key: 'birthday',
      name: 'Birthday: Happy birthday',
      subject: 'Happy birthday, {{ person.firstName | default: "friend" }}!',
      preheader: 'A small gift from all of us.',
      html: recipeHtml(
        'Happy birthday',
        pink,
        [
          `<h1>Happy birthday, ${greeting}!</h1>`,
          'Everyone at {{ account.name }} wishes you a wonderful day.',
          'To celebrate, here is a small gift from us. It is yours for the next seven days.',
        ],
        { label: 'Open my gift' },
      ),
    },
  ],
  steps: [
    step('trigger', '/annualTrigger', { field: 'birthday', time: '09:00' }, 0, 0),
    sendStep('send-birthday', 'birthday', 0, 1),
  ],
  links: [{ from: 'trigger', to: 'send-birthday' }],
};
