import { describe, expect, it } from 'vitest';
import { trackingApiSnippets } from './tracking-api-snippets.ts';

describe('the Tracking API snippets', () => {
  it("point each SDK at this Herald's address with the write key", () => {
    const [node, rudder, browser] = trackingApiSnippets('https://herald.example.com', 'wk_123');
    expect(node!.code).toContain(`new Analytics({ writeKey: 'wk_123', host: 'https://herald.example.com' })`);
    expect(rudder!.code).toContain(
      `new RudderAnalytics('wk_123', { dataPlaneUrl: 'https://herald.example.com' })`,
    );
    // analytics.js builds `${protocol}://${apiHost}/t`: the host and /v1, the scheme apart.
    expect(browser!.code).toContain(
      `'Segment.io': { apiKey: 'wk_123', apiHost: 'herald.example.com/v1', protocol: 'https' }`,
    );
  });

  it('keep a port and a plain-http address (a self-hosted Herald on a LAN)', () => {
    const browser = trackingApiSnippets('http://10.0.0.5:3000', 'wk_1')[2]!;
    expect(browser.code).toContain(`apiHost: '10.0.0.5:3000/v1', protocol: 'http'`);
  });
});
