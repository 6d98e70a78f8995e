import { greeting, recipeHtml, sendStep, step, waitStep, type Recipe } from './recipe-types.ts';

const indigo = '#364fc7';
const amber = '#e67700';

/** Clicks raise a score; at 50 the person is tagged sales-ready, the team hears of it and the person is offered a call. */
export const leadScoring: Recipe = {
  id: 'lead-scoring',
  name: 'Lead scoring',
  description:
    'Add 10 points to a person’s lead score each time they click an email. At 50 points they get the tag “sales-ready”, you get a note, and they get an offer to talk.',
  category: 'Sales',
  trigger: 'Clicks any email',
  toChoose: [],
  // Each click counts: a person may enter again a day after their last pass.
  reentryDays: 1,
  fields: [{ name: 'leadScore', title: 'Lead score', type: 'number' }],
  emails: [
    {
      key: 'talk',
      name: 'Lead scoring: Want to talk?',
      subject: 'A quick question, ' + greeting,
      preheader: 'Fifteen minutes, no slides.',
      html: recipeHtml(
        'Want to talk?',
        indigo,
        [
          `<h1>Can we help, ${greeting}?</h1>`,
          'You have been reading a lot of what we send, so we thought you might have questions we could answer faster in person.',
          'Book fifteen minutes with someone from {{ account.name }}. No slides, no pressure: just your questions and straight answers.',
        ],
        { label: 'Book 15 minutes' },
      ),
    },
  ],
  steps: [
    step('trigger', '/email-trigger', { activity: 'clicked' }, 0, 0),
    step('score', '/lead-score', { change: 10 }, 0, 1),
    step('already', '/has-tag', { tag: 'sales-ready' }, 0, 2),
    step(
      'hot',
      '/check-field',
      { condition: { type: 'field', field: 'leadScore', operator: 'greaterThan', value: 49 } },
      1,
      3,
    ),
    step('tag', '/add-tag', { tag: 'sales-ready' }, 1, 4),
    step(
      'notify',
      '/email-notification',
      {
        to: [{ $me: true }],
        subject: 'Sales-ready: {{ person.email }}',
        body: '{{ person.firstName }} {{ person.lastName }} ({{ person.email }}) reached a lead score of 50 or more and was tagged sales-ready. They were sent an offer to book a call.',
      },
      1,
      5,
    ),
    sendStep('send-talk', 'talk', 1, 6),
    step('done', '/end-flow', {}, -1, 4),
  ],
  links: [
    { from: 'trigger', to: 'score' },
    { from: 'score', to: 'already' },
    { from: 'already', to: 'done', condition: 'yes' },
    { from: 'already', to: 'hot', condition: 'no' },
    { from: 'hot', to: 'tag', condition: 'yes' },
    { from: 'hot', to: 'done', condition: 'no' },
    { from: 'tag', to: 'notify' },
    { from: 'notify', to: 'send-talk' },
  ],
};

/** After an order: thanks at once, getting started after 3 days, a review request after 10, and the customer tag. */
export const postPurchase: Recipe = {
  id: 'post-purchase',
  name: 'Post-purchase',
  description:
    'Follow up every order: a thank-you at once, tips to get the most from it three days later, and a request for a review after ten days. Send the event “Order completed” from your shop.',
  category: 'Customers',
  trigger: 'Event: Order completed',
  toChoose: [],
  reentryDays: 30,
  emails: [
    {
      key: 'thanks',
      name: 'Post-purchase: 1. Thank you',
      subject: 'Thank you for your order, ' + greeting,
      preheader: 'Here is what happens next.',
      html: recipeHtml(
        'Thank you',
        amber,
        [
          `<h1>Thank you, ${greeting}!</h1>`,
          'Your order with {{ account.name }} is confirmed. You will get a separate message as soon as it is on its way.',
          'In the meantime, if anything about your order needs changing, reply to this email and we will take care of it.',
        ],
        { label: 'See my order' },
      ),
    },
    {
      key: 'tips',
      name: 'Post-purchase: 2. Get the most from it',
      subject: 'Getting the most from your purchase',
      preheader: 'Three things customers wish they had known sooner.',
      html: recipeHtml(
        'Get the most from it',
        amber,
        [
          `<h1>A few tips, ${greeting}</h1>`,
          'Customers tell us these three things made the biggest difference in their first weeks:',
          '<ol><li>Take two minutes to set it up the way you like it.</li><li>Keep the guide at hand: the answers are usually there.</li><li>Tell us when something is not right. We fix it.</li></ol>',
        ],
        { label: 'Read the guide' },
      ),
    },
    {
      key: 'review',
      name: 'Post-purchase: 3. A review',
      subject: 'How is it going?',
      preheader: 'Your review helps others decide.',
      html: recipeHtml(
        'How is it going?',
        amber,
        [
          `<h1>How are you finding it, ${greeting}?</h1>`,
          'It has been ten days since your order. If you are happy with it, a short review would mean a lot to us, and it helps other people decide.',
          'If you are not happy, tell us first: we would like the chance to make it right.',
        ],
        { label: 'Write a review' },
      ),
    },
  ],
  steps: [
    step('trigger', '/event', { name: 'Order completed' }, 0, 0),
    sendStep('send-thanks', 'thanks', 0, 1),
    step('tag', '/add-tag', { tag: 'customer' }, 0, 2),
    waitStep('wait-3', 3, 'days', 0, 3),
    sendStep('send-tips', 'tips', 0, 4),
    waitStep('wait-7', 7, 'days', 0, 5),
    sendStep('send-review', 'review', 0, 6),
  ],
  links: [
    { from: 'trigger', to: 'send-thanks' },
    { from: 'send-thanks', to: 'tag' },
    { from: 'tag', to: 'wait-3' },
    { from: 'wait-3', to: 'send-tips' },
    { from: 'send-tips', to: 'wait-7' },
    { from: 'wait-7', to: 'send-review' },
  ],
};
