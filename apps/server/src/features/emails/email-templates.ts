import type { EmailTemplate } from '@herald/contracts';
import { layout, row } from './templates/layout.ts';

const greeting = '{{ person.firstName | default: "there" }}';

/**
 * The starter templates of the gallery (GET /v1/emails/templates), written for Herald and shipped
 * with it: no remote images or fonts, so they look the same offline and in clients that block images.
 * Rich-text and drag-and-drop templates carry no editor state: those editors read the HTML.
 */
export const emailTemplates: EmailTemplate[] = [
  {
    id: 'welcome',
    name: 'Welcome',
    description: 'Greet a new sign-up and point them to the one thing to do first.',
    editorType: 'html',
    subject: 'Welcome to {{ account.name }}, ' + greeting,
    preheader: 'Here is how to get started in five minutes.',
    state: null,
    html: layout({
      title: 'Welcome',
      accent: '#3b5bdb',
      rows: row(`        <h1>Welcome aboard, ${greeting}!</h1>
        <p>Thanks for joining {{ account.name }}. You are all set up, and the quickest way to see what we can do for you is to take the first step now.</p>
        <p><a class="button" href="{{ account.site | default: "https://example.com" }}">Take the first step</a></p>
        <p class="muted">Questions? Reply to this email: a real person reads every answer.</p>`),
    }),
  },
  {
    id: 'newsletter',
    name: 'Newsletter',
    description: 'A monthly round-up with three stories and a link to each.',
    editorType: 'html',
    subject: 'What is new at {{ account.name }} this month',
    preheader: 'Three things worth your time.',
    state: null,
    html: layout({
      title: 'Newsletter',
      accent: '#0c8599',
      rows: [
        row(`        <h1>Hi ${greeting}, here is this month's news</h1>
        <p>A short round-up of what we built, what we learned and what is coming next.</p>`),
        row(`        <h2>1. The headline story</h2>
        <p>Two or three sentences that make the reader want to know more. Keep it concrete: what changed and why it matters to them.</p>
        <p><a href="https://example.com/story-one">Read the story</a></p>
        <h2>2. A tip from the team</h2>
        <p>One practical tip your readers can use today, in plain words.</p>
        <p><a href="https://example.com/tip">See the tip</a></p>
        <h2>3. Coming up</h2>
        <p>A date, an event or a release to look forward to.</p>
        <p><a href="https://example.com/coming-up">Learn more</a></p>`),
      ].join('\n'),
    }),
  },
  {
    id: 'announcement',
    name: 'Product announcement',
    description: 'Announce a launch with one message and one button.',
    editorType: 'html',
    subject: 'New: the feature you asked for',
    preheader: 'Available today on every plan.',
    state: null,
    html: layout({
      title: 'Announcement',
      accent: '#e8590c',
      rows: row(`        <p class="muted">NEW TODAY</p>
        <h1>The feature you asked for is here</h1>
        <p>Hi ${greeting}, we have been working on this for months, and it is available today for everyone at {{ person.company | default: "your company" }}.</p>
        <p>Explain the benefit in one sentence, then show the way in.</p>
        <p><a class="button" href="https://example.com/launch">Try it now</a></p>`),
    }),
  },
  {
    id: 'event',
    name: 'Event invitation',
    description: 'Invite people to a webinar or meetup with the date, the place and a reply button.',
    editorType: 'html',
    subject: 'You are invited, ' + greeting,
    preheader: 'Save the date and reserve your seat.',
    state: null,
    html: layout({
      title: 'Invitation',
      accent: '#7048e8',
      rows: row(`        <h1>Join us live</h1>
        <p>Hi ${greeting}, we would love to see you at our next session.</p>
        <p><strong>When:</strong> Thursday, 10:00 (your time zone)<br><strong>Where:</strong> Online, the link comes with your seat</p>
        <p><a class="button" href="https://example.com/event">Reserve my seat</a></p>
        <p class="muted">Can't make it? Reserve anyway and we will send you the recording.</p>`),
    }),
  },
  {
    id: 'letter',
    name: 'Plain letter',
    description: 'A personal note that reads like an email from a colleague. Best in the rich-text editor.',
    editorType: 'richtext',
    subject: 'A quick note, ' + greeting,
    preheader: '',
    state: null,
    html: layout({
      title: 'A note',
      accent: '#495057',
      rows: row(`        <p>Hi ${greeting},</p>
        <p>I wanted to write to you personally. Tell your reader one thing, the way you would tell a colleague.</p>
        <p>If you have a minute, reply and let me know what you think.</p>
        <p>Best,<br>The {{ account.name }} team</p>`),
    }),
  },
  {
    id: 'come-back',
    name: 'We miss you',
    description:
      'Win back people who have not opened an email in a while. Built in blocks for the drag-and-drop editor.',
    editorType: 'dragdrop',
    subject: 'We miss you, ' + greeting,
    preheader: 'Here is what you missed.',
    state: null,
    html: layout({
      title: 'We miss you',
      accent: '#2f9e44',
      rows: row(`        <h1>It has been a while, ${greeting}</h1>
        <p>A lot has changed since your last visit. Here are the highlights in one minute.</p>
        <p><a class="button" href="https://example.com/whats-new">See what is new</a></p>
        <p class="muted">Not interested any more? No hard feelings: you can change what you get below.</p>`),
    }),
  },
];
