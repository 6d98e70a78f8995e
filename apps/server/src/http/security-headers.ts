import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/**
 * Security headers on every answer (issue 22), by kind of answer:
 * - the app's pages (index.html for every client-side route): a Content-Security-Policy without inline or eval'd script,
 *   no plugins, no <base> elsewhere, forms only to Herald, never framed (frame-ancestors 'none', X-Frame-Options DENY).
 *   Mantine's style attributes and injected <style> need 'unsafe-inline' styles; email previews are srcdoc iframes,
 *   which inherit this policy, so images may come from any web host and fonts and stylesheets from https hosts.
 *   Google's sign-in script, frame and stylesheet are allowed only when GOOGLE_CLIENT_ID is set.
 * - pages under /public/ (preferences, unsubscribe, sender verification, invitations) carry tokens in their address:
 *   Referrer-Policy no-referrer, so no link on them tells another site the token.
 * - API answers (/v1/…) and stored files (/files/…): a policy that lets nothing load or run (`default-src 'none'`),
 *   in case a browser is made to render one.
 * - the site script (/site.js) and stored files are fetched by other sites: Cross-Origin-Resource-Policy: cross-origin.
 * - everything: X-Content-Type-Options nosniff, Referrer-Policy strict-origin-when-cross-origin unless the answer set
 *   its own, and Strict-Transport-Security when the request came over https (PUBLIC_URL is https, or a trusted proxy
 *   said X-Forwarded-Proto: https).
 * The open pixel and click redirect are answered before Fastify (tracking.endpoints.ts) and use `trackingHeaders`.
 */

export const hstsValue = 'max-age=31536000';

const google = {
  script: 'https://accounts.google.com/gsi/client',
  frame: 'https://accounts.google.com/gsi/',
  style: 'https://accounts.google.com/gsi/style',
};

/** The app pages' policy. */
export function appContentSecurityPolicy(config: Pick<Config, 'google'>): string {
  const withGoogle = Boolean(config.google.clientId);
  const directives: [string, ...string[]][] = [
    ['default-src', "'self'"],
    ['script-src', "'self'", ...(withGoogle ? [google.script] : [])],
    ['style-src', "'self'", "'unsafe-inline'", 'https:'],
    ['img-src', "'self'", 'data:', 'blob:', 'https:', 'http:'],
    ['font-src', "'self'", 'data:', 'https:'],
    ['connect-src', "'self'", ...(withGoogle ? [google.frame] : [])],
    ['frame-src', "'self'", ...(withGoogle ? [google.frame] : [])],
    ['worker-src', "'self'"],
    ['object-src', "'none'"],
    ['base-uri', "'self'"],
    ['form-action', "'self'"],
    ['frame-ancestors', "'none'"],
  ];
  return directives.map((d) => d.join(' ')).join('; ');
}

/** Answers that are data, not pages (API JSON, CSV, stored files): nothing may load or run if a browser renders one. */
export const dataContentSecurityPolicy =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Herald's own small page for a click link that does not check out: its inline style and nothing else. */
export const trackingPageContentSecurityPolicy =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Whether the request reached Herald over https: PUBLIC_URL says so, or a trusted proxy does. */
function isHttps(
  config: Pick<Config, 'publicUrl' | 'trustProxy'>,
  forwardedProto: string | string[] | undefined,
  encrypted: boolean,
): boolean {
  if (config.publicUrl.startsWith('https://') || encrypted) return true;
  if (!config.trustProxy) return false;
  const first = (Array.isArray(forwardedProto) ? forwardedProto[0] : forwardedProto)
    ?.split(',')[0]
    ?.trim()
    .toLowerCase();
  return first === 'https';
}

/**
 * The headers of a tracking answer (pixel, redirect, or the page for a bad link), decided without Fastify: `own`
 * plus the security headers, the HSTS ones over https. Both sets are made once; a hit only picks one.
 */
export function trackingHeaders<T extends Record<string, string>>(
  config: Pick<Config, 'publicUrl' | 'trustProxy'>,
  own: T,
) {
  const base = {
    ...own,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'cross-origin',
  };
  const secure = { ...base, 'strict-transport-security': hstsValue };
  return (request: IncomingMessage): Record<string, string> =>
    isHttps(
      config,
      request.headers['x-forwarded-proto'],
      Boolean((request.socket as { encrypted?: boolean }).encrypted),
    )
      ? secure
      : base;
}

const tokenPages = /^\/public\//;

function kindOf(
  request: FastifyRequest,
  contentType: string,
): 'page' | 'data' | 'script' | 'tracking' | 'asset' {
  const path = request.url.split('?')[0] ?? '';
  if (path === '/site.js') return 'script';
  if (path.startsWith('/t/')) return 'tracking';
  if (path.startsWith('/v1/') || path === '/v1' || path.startsWith('/files/')) return 'data';
  if (contentType.startsWith('text/html')) return 'page';
  return 'asset';
}

export function registerSecurityHeaders(app: FastifyInstance, config: Config): void {
  const appPolicy = appContentSecurityPolicy(config);
  app.addHook('onSend', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const contentType = String(reply.getHeader('content-type') ?? '');
    const kind = kindOf(request, contentType);
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('referrer-policy'))
      reply.header(
        'referrer-policy',
        tokenPages.test(path) || kind === 'tracking' ? 'no-referrer' : 'strict-origin-when-cross-origin',
      );
    if (isHttps(config, request.headers['x-forwarded-proto'], request.protocol === 'https'))
      reply.header('strict-transport-security', hstsValue);
    if (kind === 'page') {
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', appPolicy);
      reply.header('x-frame-options', 'DENY');
    } else if (kind === 'data') {
      if (!reply.hasHeader('content-security-policy'))
        reply.header('content-security-policy', dataContentSecurityPolicy);
      if (path.startsWith('/files/')) reply.header('cross-origin-resource-policy', 'cross-origin');
    } else if (kind === 'script' || kind === 'tracking') {
      reply.header('cross-origin-resource-policy', 'cross-origin');
    }
  });
}
