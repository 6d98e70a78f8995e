import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './helpers.ts';

/**
 * The web app at the bare address (it answered 403 from the static files before) and the security headers by kind
 * (the full check over real HTTP is test/security/headers.test.ts, in npm run test:security).
 */
let ctx: TestContext;
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-web-'));
beforeAll(async () => {
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(
    path.join(dist, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>',
  );
  fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1);');
  ctx = await createTestContext({ WEB_DIST_DIR: dist });
});
afterAll(async () => {
  await ctx.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('web app and security headers', () => {
  it('serves the app at / and at client-side routes, with the strict policy and no framing', async () => {
    for (const url of ['/', '/dashboard', '/public/unsubscribe?token=x']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['content-security-policy']).toContain("script-src 'self';");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe(
        url.startsWith('/public/') ? 'no-referrer' : 'strict-origin-when-cross-origin',
      );
      expect(res.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('API answers let nothing run; the site script and assets keep their own headers', async () => {
    const api = await ctx.app.inject({ method: 'GET', url: '/v1/accounts' });
    expect(api.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    const script = await ctx.app.inject({ method: 'GET', url: '/site.js' });
    expect(script.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(script.headers['x-frame-options']).toBeUndefined();
    const asset = await ctx.app.inject({ method: 'GET', url: '/assets/app.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
  });
});
