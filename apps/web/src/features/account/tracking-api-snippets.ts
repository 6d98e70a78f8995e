/**
 * The snippets the account page shows for sending events through Segment's and RudderStack's SDKs to this Herald
 * (docs/people.md, "Segment-compatible Tracking API"): the SDKs as they are, pointed at Herald's
 * address with the account's write key.
 */
export interface TrackingSnippet {
  id: 'analytics-node' | 'rudder-sdk-node' | 'analytics-next';
  label: string;
  install: string;
  code: string;
}

export function trackingApiSnippets(origin: string, writeKey: string): TrackingSnippet[] {
  const url = new URL(origin);
  const apiHost = `${url.host}/v1`;
  const protocol = url.protocol.replace(':', '');
  const identify = `{ userId: 'user-42', traits: { email: 'ada@example.com', firstName: 'Ada' } }`;
  const track = `{ userId: 'user-42', event: 'Order Completed', properties: { total: 42.5 } }`;
  return [
    {
      id: 'analytics-node',
      label: 'Node.js (Segment)',
      install: 'npm install @segment/analytics-node',
      code: [
        `import { Analytics } from '@segment/analytics-node';`,
        ``,
        `const analytics = new Analytics({ writeKey: '${writeKey}', host: '${url.origin}' });`,
        `analytics.identify(${identify});`,
        `analytics.track(${track});`,
        `analytics.page({ userId: 'user-42', name: 'Pricing', properties: { url: 'https://example.com/pricing' } });`,
      ].join('\n'),
    },
    {
      id: 'rudder-sdk-node',
      label: 'Node.js (RudderStack)',
      install: 'npm install @rudderstack/rudder-sdk-node',
      code: [
        `import RudderAnalytics from '@rudderstack/rudder-sdk-node';`,
        ``,
        `const client = new RudderAnalytics('${writeKey}', { dataPlaneUrl: '${url.origin}' });`,
        `client.identify(${identify});`,
        `client.track(${track});`,
        `client.page({ userId: 'user-42', name: 'Pricing', properties: { url: 'https://example.com/pricing' } });`,
      ].join('\n'),
    },
    {
      id: 'analytics-next',
      label: 'Browser (analytics.js)',
      install: 'npm install @segment/analytics-next',
      code: [
        `import { AnalyticsBrowser } from '@segment/analytics-next';`,
        ``,
        `// Settings given here, so nothing is fetched from Segment: every call goes to Herald.`,
        `export const analytics = AnalyticsBrowser.load({`,
        `  writeKey: '${writeKey}',`,
        `  cdnSettings: {`,
        `    integrations: {`,
        `      'Segment.io': { apiKey: '${writeKey}', apiHost: '${apiHost}', protocol: '${protocol}' },`,
        `    },`,
        `  },`,
        `});`,
        `analytics.page();`,
        `analytics.identify('user-42', { email: 'ada@example.com' });`,
      ].join('\n'),
    },
  ];
}
