import {
  emailRef,
  endStep,
  greeting,
  recipeHtml,
  segmentRef,
  sendStep,
  step,
  waitStep,
  type Recipe,
} from './recipe-types.ts';

const blue = '#3b5bdb';
const teal = '#0c8599';
const orange = '#e8590c';

/** Three emails over a week for everyone new: hello, the first step, and what others do next. */
export const welcomeSeries: Recipe = {
  id: 'welcome-series',
  name: 'Welcome series',
  description:
    'Greet everyone who joins with three emails over a week: a hello, the one thing to do first, and what to try next.',
  category: 'Onboarding',
  trigger: 'Enters the automatic segment “New”',
  toChoose: [],
  emails: [
    {
      key: 'hello',
      name: 'Welcome series: 1. Hello',
      subject: 'Welcome to {{ account.name }}, ' + greeting,
      preheader: 'Glad you are here. Here is what happens next.',
      html: recipeHtml(
        'Welcome',
        blue,
        [
          `<h1>Welcome, ${greeting}!</h1>`,
          'Thanks for joining {{ account.name }}. Over the next week we will send you two more short emails, each with one useful thing to do. No more than that.',
          'If you only have a minute today, start here: it is the quickest way to see what we can do for you.',
        ],
        { label: 'Get started' },
      ),
    },
    {
      key: 'first-step',
      name: 'Welcome series: 2. The first step',
      subject: 'The one thing to do first',
      preheader: 'Five minutes now saves you an hour later.',
      html: recipeHtml(
        'The first step',
        blue,
        [
          `<h1>Your first step, ${greeting}</h1>`,
          'Most people who get real value from {{ account.name }} do one thing in their first days: they set up the basics, so everything else has something to build on.',
          'It takes about five minutes. We wrote a short guide that walks you through it, screen by screen.',
        ],
        { label: 'Open the guide' },
      ),
    },
    {
      key: 'next',
      name: 'Welcome series: 3. What to try next',
      subject: 'What people try after their first week',
      preheader: 'Three ideas, pick the one that fits you.',
      html: recipeHtml(
        'What to try next',
        blue,
        [
          `<h1>Ready for more, ${greeting}?</h1>`,
          'A week in, here is what people like you usually try next:',
          '<ul><li>Invite a colleague, so you are not doing it all alone.</li><li>Connect the tools you already use.</li><li>Pick one result to track, and check it every Monday.</li></ul>',
          'That is the end of our welcome emails. From now on you will only hear from us when we have something worth your time.',
        ],
        { label: 'See what is possible' },
      ),
    },
  ],
  steps: [
    step('trigger', '/entered-segment', { segment: { id: segmentRef('new') } }, 0, 0),
    sendStep('send-hello', 'hello', 0, 1),
    waitStep('wait-2', 2, 'days', 0, 2),
    sendStep('send-first-step', 'first-step', 0, 3),
    waitStep('wait-5', 5, 'days', 0, 4),
    sendStep('send-next', 'next', 0, 5),
  ],
  links: [
    { from: 'trigger', to: 'send-hello' },
    { from: 'send-hello', to: 'wait-2' },
    { from: 'wait-2', to: 'send-first-step' },
    { from: 'send-first-step', to: 'wait-5' },
    { from: 'wait-5', to: 'send-next' },
  ],
};

/** A 14-day trial: tips early, a story for those who clicked, reminders before it ends unless they became customers. */
export const trialNurture: Recipe = {
  id: 'trial-nurture',
  name: 'Trial nurture',
  description:
    'Guide people through a 14-day trial: tips on day 2, a customer story for those who clicked, and two reminders before the trial ends unless they already bought.',
  category: 'Nurture',
  trigger: 'Tag added: trial',
  toChoose: [],
  emails: [
    {
      key: 'start',
      name: 'Trial nurture: 1. Your trial has started',
      subject: 'Your trial of {{ account.name }} has started',
      preheader: 'Fourteen days, everything included.',
      html: recipeHtml(
        'Your trial',
        teal,
        [
          `<h1>Your trial is on, ${greeting}</h1>`,
          'For the next 14 days you have everything {{ account.name }} offers, with no limits and no card needed.',
          'The best trials start with a real task. Pick something you need to get done this week and do it with us.',
        ],
        { label: 'Start your first task' },
      ),
    },
    {
      key: 'tips',
      name: 'Trial nurture: 2. Three tips',
      subject: 'Three tips from people who made it work',
      preheader: 'Small habits that make a big difference.',
      html: recipeHtml(
        'Three tips',
        teal,
        [
          `<h1>Three tips for your trial, ${greeting}</h1>`,
          '<ol><li><strong>Start small.</strong> One project done well tells you more than five half-done.</li><li><strong>Bring a colleague.</strong> Trials shared with a teammate end in a decision twice as often.</li><li><strong>Ask us.</strong> We answer questions the same day.</li></ol>',
        ],
        { label: 'Read the full tips' },
      ),
    },
    {
      key: 'story',
      name: 'Trial nurture: 3. A customer story',
      subject: 'How one team saved a day a week',
      preheader: 'A short story from a team like yours.',
      html: recipeHtml(
        'A customer story',
        teal,
        [
          `<h1>A story for you, ${greeting}</h1>`,
          'You clicked on our tips, so here is the longer version: how a small team replaced three tools with {{ account.name }} and got a day a week back.',
          'It takes four minutes to read, and it ends with the exact setup they use.',
        ],
        { label: 'Read their story' },
      ),
    },
    {
      key: 'ending',
      name: 'Trial nurture: 4. Trial ends in 3 days',
      subject: 'Your trial ends in 3 days',
      preheader: 'Keep everything you set up.',
      html: recipeHtml(
        'Trial ending',
        orange,
        [
          `<h1>Three days left, ${greeting}</h1>`,
          'Your trial ends in three days. Choose a plan now and everything you set up stays exactly as it is.',
          'Not sure which plan fits? Reply with what you do and we will tell you honestly.',
        ],
        { label: 'Choose a plan' },
      ),
    },
    {
      key: 'last-day',
      name: 'Trial nurture: 5. Last day',
      subject: 'Last day of your trial',
      preheader: 'After today your account pauses.',
      html: recipeHtml(
        'Last day',
        orange,
        [
          `<h1>Today is the last day, ${greeting}</h1>`,
          'Your trial ends tonight. Your work is kept for 30 days, so you can come back to it whenever you are ready.',
        ],
        { label: 'Keep my account' },
      ),
    },
  ],
  steps: [
    step('trigger', '/added-tag', { tag: 'trial' }, 0, 0),
    sendStep('send-start', 'start', 0, 1),
    waitStep('wait-2', 2, 'days', 0, 2),
    sendStep('send-tips', 'tips', 0, 3),
    waitStep('wait-3', 3, 'days', 0, 4),
    step(
      'clicked-tips',
      '/check-email-activity',
      {
        condition: {
          type: 'emailActivity',
          activity: 'clicked',
          performed: true,
          subject: { type: 'email', id: emailRef('tips') },
          window: { type: 'ever' },
        },
      },
      0,
      5,
    ),
    sendStep('send-story', 'story', -1, 6),
    waitStep('wait-6', 6, 'days', 0, 7),
    step('customer-1', '/has-tag', { tag: 'customer' }, 0, 8),
    sendStep('send-ending', 'ending', 1, 9),
    waitStep('wait-3b', 3, 'days', 1, 10),
    step('customer-2', '/has-tag', { tag: 'customer' }, 1, 11),
    sendStep('send-last-day', 'last-day', 2, 12),
    endStep('done', -1, 12),
  ],
  links: [
    { from: 'trigger', to: 'send-start' },
    { from: 'send-start', to: 'wait-2' },
    { from: 'wait-2', to: 'send-tips' },
    { from: 'send-tips', to: 'wait-3' },
    { from: 'wait-3', to: 'clicked-tips' },
    { from: 'clicked-tips', to: 'send-story', condition: 'yes' },
    { from: 'clicked-tips', to: 'wait-6', condition: 'no' },
    { from: 'send-story', to: 'wait-6' },
    { from: 'wait-6', to: 'customer-1' },
    { from: 'customer-1', to: 'done', condition: 'yes' },
    { from: 'customer-1', to: 'send-ending', condition: 'no' },
    { from: 'send-ending', to: 'wait-3b' },
    { from: 'wait-3b', to: 'customer-2' },
    { from: 'customer-2', to: 'done', condition: 'yes' },
    { from: 'customer-2', to: 'send-last-day', condition: 'no' },
  ],
};

/** People who started signing up and stopped: two nudges, unless they finish meanwhile. */
export const abandonedSignup: Recipe = {
  id: 'abandoned-signup',
  name: 'Abandoned signup',
  description:
    'Bring back people who started signing up and stopped: a nudge after an hour and an offer of help a day later, skipped once they have the tag “signed-up”. Send the event “Signup started” from your site.',
  category: 'Onboarding',
  trigger: 'Event: Signup started',
  toChoose: [],
  emails: [
    {
      key: 'nudge',
      name: 'Abandoned signup: 1. Finish signing up',
      subject: 'You are one step away',
      preheader: 'Pick up where you left off.',
      html: recipeHtml(
        'Finish signing up',
        blue,
        [
          `<h1>Almost there, ${greeting}</h1>`,
          'You started creating your {{ account.name }} account but did not finish. Everything you entered is saved: it takes less than a minute to complete.',
        ],
        { label: 'Finish signing up' },
      ),
    },
    {
      key: 'help',
      name: 'Abandoned signup: 2. Need a hand?',
      subject: 'Did something get in the way?',
      preheader: 'Tell us and we will sort it out.',
      html: recipeHtml(
        'Need a hand?',
        blue,
        [
          `<h1>Can we help, ${greeting}?</h1>`,
          'Signing up should be easy. If something stopped you (a question about pricing, a form that would not work, a doubt about whether we fit) just reply to this email.',
          'Or, if you are ready now, your account is waiting.',
        ],
        { label: 'Complete my account' },
      ),
    },
  ],
  steps: [
    step('trigger', '/event', { name: 'Signup started' }, 0, 0),
    waitStep('wait-1h', 1, 'hours', 0, 1),
    step('signed-up-1', '/has-tag', { tag: 'signed-up' }, 0, 2),
    sendStep('send-nudge', 'nudge', 1, 3),
    waitStep('wait-1d', 1, 'days', 1, 4),
    step('signed-up-2', '/has-tag', { tag: 'signed-up' }, 1, 5),
    sendStep('send-help', 'help', 2, 6),
    endStep('done', -1, 6),
  ],
  links: [
    { from: 'trigger', to: 'wait-1h' },
    { from: 'wait-1h', to: 'signed-up-1' },
    { from: 'signed-up-1', to: 'done', condition: 'yes' },
    { from: 'signed-up-1', to: 'send-nudge', condition: 'no' },
    { from: 'send-nudge', to: 'wait-1d' },
    { from: 'wait-1d', to: 'signed-up-2' },
    { from: 'signed-up-2', to: 'done', condition: 'yes' },
    { from: 'signed-up-2', to: 'send-help', condition: 'no' },
  ],
};
