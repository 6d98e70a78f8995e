import { slackServiceId, type ServiceKind } from '@herald/contracts';

/**
 * Services beyond Herald's own steps (issue 20). Slack connects with credentials; every other app is listed with what
 * it takes to use it with Herald today — its webhooks sent to a flow's Webhook trigger, or its API called from a Send
 * webhook step — and none of them claims a connection Herald does not make.
 */
export interface CatalogueService {
  id: string;
  name: string;
  humanName: string;
  kind: ServiceKind;
  category: string;
  description: string;
  howToConnect: string[];
  /** Operations of POST /v1/services/{id}/{operation}. */
  operations: string[];
  /** JSON Schema of the credentials (credentials services) or of what the service sends (others). */
  schema: Record<string, unknown>;
}

const intoTrigger = (app: string, events: string) =>
  `In ${app}, add a webhook for ${events} and paste the URL of a flow's “Webhook trigger” step; Herald enters the person whose email the call carries (the body needs an "email" field, or sign the call and send "personId").`;
const fromStep = (app: string, what: string) =>
  `To change data in ${app}, add a “Send webhook” step that calls ${what}; the call carries the person's email, name, tags and fields.`;

const inboundSchema = {
  type: 'object',
  properties: { email: { type: 'string', format: 'email' }, personId: { type: 'integer' } },
  description:
    'What a Webhook trigger step accepts: an email (a person is created when none has it) or a person id.',
};

const viaWebhooks = (
  id: string,
  humanName: string,
  category: string,
  description: string,
  howToConnect: string[],
): CatalogueService => ({
  id,
  name: id,
  humanName,
  kind: 'via-webhooks',
  category,
  description,
  howToConnect,
  operations: [],
  schema: inboundSchema,
});

export const slackService: CatalogueService = {
  id: slackServiceId,
  name: slackServiceId,
  humanName: 'Slack',
  kind: 'credentials',
  category: 'Team chat',
  description:
    'Post messages to a Slack channel from flows (the “Send Slack message” step) and receive Herald’s account alerts there.',
  howToConnect: [
    'In Slack, create an app for your workspace, turn on “Incoming Webhooks” and add a webhook to the channel Herald should post to.',
    'Paste the webhook URL (https://hooks.slack.com/services/…) here and press Connect, then Send test message.',
  ],
  operations: ['test'],
  schema: {
    type: 'object',
    required: ['url'],
    properties: {
      url: {
        type: 'string',
        format: 'uri',
        description: 'The incoming-webhook URL Slack gave, https://hooks.slack.com/services/…',
      },
    },
  },
};

export const thirdPartyServices: CatalogueService[] = [
  viaWebhooks(
    'mailchimp',
    'Mailchimp',
    'Email lists',
    'Bring subscribers from Mailchimp audiences into Herald.',
    [
      intoTrigger('Mailchimp (Audience → Settings → Webhooks)', 'subscribes and profile updates'),
      'For a one-time move, export the audience as CSV and import it under People.',
    ],
  ),
  viaWebhooks(
    'intercom',
    'Intercom',
    'Customer messaging',
    'Start flows when people sign up or are tagged in Intercom.',
    [
      intoTrigger('Intercom (Developer Hub → your app → Webhooks)', 'contact.created or contact.tag.created'),
      fromStep(
        'Intercom',
        'the Intercom REST API (https://api.intercom.io/…) through a small relay that adds your access token',
      ),
    ],
  ),
  viaWebhooks('stripe', 'Stripe', 'Payments', 'Start flows on payments, subscriptions and cancellations.', [
    intoTrigger(
      'Stripe (Developers → Webhooks)',
      'customer.subscription.created, invoice.paid or customer.subscription.deleted',
    ),
    'Stripe sends the customer’s email inside its event; a relay that copies it to a top-level "email" field makes the call fit the trigger.',
  ]),
  viaWebhooks('hubspot', 'HubSpot', 'CRM', 'Keep contacts in step with HubSpot.', [
    intoTrigger('a HubSpot workflow (“Send a webhook” action)', 'the contacts the workflow enrols'),
    fromStep('HubSpot', 'a HubSpot workflow webhook trigger or your own relay to the HubSpot API'),
  ]),
  viaWebhooks('salesforce', 'Salesforce', 'CRM', 'Enter leads and contacts from Salesforce into flows.', [
    intoTrigger(
      'Salesforce (a Flow with an HTTP callout, or an outbound message through a relay)',
      'new or changed leads',
    ),
    fromStep('Salesforce', 'your relay to the Salesforce REST API'),
  ]),
  viaWebhooks('chargebee', 'Chargebee', 'Subscriptions', 'Start flows on Chargebee subscription events.', [
    intoTrigger(
      'Chargebee (Settings → Configure Chargebee → Webhooks)',
      'subscription_created, subscription_cancelled or payment_failed',
    ),
  ]),
  viaWebhooks(
    'paddle',
    'Paddle',
    'Subscriptions',
    'Start flows on Paddle checkouts and subscription changes.',
    [
      intoTrigger(
        'Paddle (Developer tools → Notifications)',
        'subscription.created, subscription.canceled or transaction.completed',
      ),
    ],
  ),
  viaWebhooks(
    'recurly',
    'Recurly',
    'Subscriptions',
    'Start flows on Recurly account and subscription events.',
    [
      intoTrigger(
        'Recurly (Integrations → Webhooks)',
        'new_subscription, canceled_subscription or failed_payment',
      ),
    ],
  ),
  viaWebhooks(
    'chargify',
    'Chargify (Maxio)',
    'Subscriptions',
    'Start flows on Chargify subscription events.',
    [
      intoTrigger(
        'Chargify (Config → Settings → Webhooks)',
        'signup_success, subscription_state_change or payment_failure',
      ),
    ],
  ),
  viaWebhooks('calendly', 'Calendly', 'Scheduling', 'Start flows when someone books or cancels a meeting.', [
    intoTrigger(
      'Calendly (Integrations → API & Webhooks, a webhook subscription)',
      'invitee.created or invitee.canceled',
    ),
  ]),
  viaWebhooks('typeform', 'Typeform', 'Forms', 'Start flows when someone answers a Typeform.', [
    intoTrigger(
      'Typeform (your form → Connect → Webhooks)',
      'each response, with an email question in the form',
    ),
    'Or use Herald’s own forms on your site: site tracking captures them and the “Site form submitted” trigger starts a flow.',
  ]),
  viaWebhooks(
    'facebook-audiences',
    'Facebook custom audiences',
    'Advertising',
    'Keep a Facebook custom audience in step with a segment.',
    [
      fromStep(
        'Facebook',
        'your relay to the Marketing API’s custom-audience users endpoint, from flows that start on “Entered segment” and “Left segment”',
      ),
      'Or export the segment under People as CSV and upload it to Ads Manager.',
    ],
  ),
  viaWebhooks('sms', 'SMS', 'Messaging', 'Send text messages from flows through an SMS provider.', [
    fromStep(
      'your SMS provider (Twilio, Vonage, MessageBird…)',
      'your relay to the provider’s send-message API; the call carries the person’s phone field',
    ),
  ]),
];

export const connectableServices: CatalogueService[] = [slackService];
export const integrationServices: CatalogueService[] = [slackService, ...thirdPartyServices];

export const findService = (id: string) => integrationServices.find((service) => service.id === id);
