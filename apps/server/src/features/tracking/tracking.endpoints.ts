/**
 * The open pixel and the click redirect: public, no session, no body, no schema. They check the token by hand,
 * answer at once and leave the hit in a buffer (hit-buffer.ts). A hit that does not check out is answered the
 * same way a valid one would be for the pixel (the image), and with a page of Herald's own for a click (no
 * redirect at all); it writes nothing.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { trackingHeaders, trackingPageContentSecurityPolicy } from '../../http/security-headers.ts';
import { recentValues } from '../../lib/recent-values.ts';
import type { Services } from '../../services.ts';
import { createClickIdentity } from './click-identity.ts';
import { HitBuffer, type HitBufferOptions } from './hit-buffer.ts';
import { HitThrottle } from './hit-throttle.ts';
import { isMachineHit, userAgentClass } from './machine-hits.ts';
import { clickPath, openPath } from './tracking-links.ts';
import { decodeMessage, maxLinkLength, verifyLink, type DecodedMessage } from './tracking-token.ts';

/** A transparent 1x1 GIF (42 bytes). */
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const pixelText = pixel.toString('latin1');

/** Hits recorded per second from one address for one message's pixel or one link; more are answered, not recorded. */
export const hitsPerSecond = 3;

/** The page a click that does not check out gets: Herald's own, with no link anywhere. */
const invalidLinkPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Link not available</title>
<style>body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f8f9fa;color:#212529;display:flex;min-height:100vh;align-items:center;justify-content:center}main{background:#fff;border:1px solid #dee2e6;border-radius:8px;padding:32px;max-width:420px;margin:16px}h1{font-size:20px;margin:0 0 8px}p{margin:0;line-height:1.5;color:#495057}</style></head>
<body><main><h1>This link is not available</h1><p>The link you followed is incomplete or was changed after the email was sent. Open it again from the email, or copy the whole address into your browser.</p></main></body></html>`;

const buffers = new WeakMap<FastifyInstance, HitBuffer>();

/** Write the hits an app holds now (tests and benchmarks wait for them this way). */
export async function flushTrackingHits(app: FastifyInstance): Promise<void> {
  await buffers.get(app)?.flush();
}

/** The buffer of an app, for its figures (written, dropped). */
export function trackingHitBuffer(app: FastifyInstance): HitBuffer | undefined {
  return buffers.get(app);
}

/** A destination to send a browser to: an absolute http(s) URL, as the URL parser writes it (no raw spaces or line breaks). */
function parseTarget(url: string): string | null {
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** parseTarget of the destinations clicked lately (every reader of an email clicks the same few). */
const redirectTarget = recentValues(10_000, parseTarget);

/** The `u` values of a click's query string (read only: the arrays are shared). */
const destinationsOf = (query: string): readonly string[] => new URLSearchParams(query).getAll('u');
/** Query strings longer than this are read every time rather than kept (at most 1,000 kept, so at most 2 MB). */
const keptQueryLength = 1024;
/** destinationsOf the query strings of lately clicked links: one email's readers send the same few. */
const recentDestinations = recentValues(1_000, destinationsOf);

export interface TrackingEndpoints {
  /** Answer a tracking request straight from the HTTP server, before Fastify; false when it is not one. */
  handle(request: IncomingMessage, response: ServerResponse): boolean;
  /** Fastify's serverFactory: the HTTP server Fastify would make (its timeouts), with `handle` in front. */
  serverFactory(
    handler: (request: IncomingMessage, response: ServerResponse) => void,
    options: Record<string, unknown>,
  ): http.Server;
  /** The same endpoints as Fastify routes (for `inject`, and a server made without the handle above), and the flush at close. */
  register(app: FastifyInstance): void;
}

const pixelHeaders = {
  'content-type': 'image/gif',
  'content-length': String(pixel.length),
  'cache-control': 'no-store, max-age=0',
};
const invalidHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'content-length': String(Buffer.byteLength(invalidLinkPage)),
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': trackingPageContentSecurityPolicy,
};

/**
 * The open pixel, GET or HEAD /t/o/{token}, and the click redirect, /t/c/{token}/{signature}?u={url}. The
 * HTTP server hands these paths to `handle` before Fastify sees them (http/app.ts's serverFactory): no routing,
 * hooks, reply objects or logging per hit, which measured a quarter less CPU a hit than a Fastify route.
 */
export function createTrackingEndpoints(
  services: Services,
  options: HitBufferOptions = {},
): TrackingEndpoints {
  const secret = services.secret;
  const trustProxy = services.config.trustProxy;
  const throttle = new HitThrottle(hitsPerSecond);
  // nosniff, no-referrer, cross-origin and HSTS over https (security-headers.ts), as Fastify's answers get them.
  const pixelAnswer = trackingHeaders(services.config, pixelHeaders);
  // The length said, the redirect and the page go as one write: without it Node sends them chunked, the header and the
  // chunks' end in two buffers (writev), and the client has the chunked framing to read.
  const redirectAnswer = trackingHeaders(services.config, {
    'content-length': '0',
    'cache-control': 'no-store, max-age=0',
  });
  const invalidAnswer = trackingHeaders(services.config, invalidHeaders);
  let buffer: HitBuffer | undefined;
  /** Handle a request now, or once the buffer has room for its hit (HitBuffer.whenRoom). */
  const whenRoom = (handle: () => void) => (buffer ? buffer.whenRoom(handle) : handle());

  const record = (
    ip: string,
    agentHeader: string | undefined,
    isHead: boolean,
    ref: DecodedMessage,
    name: 'opened' | 'clicked',
    link: string | null,
    key: string,
  ) => {
    const now = Date.now();
    if (!buffer || !throttle.allow(ip, key, now)) return;
    const agent = userAgentClass(agentHeader);
    buffer.add({
      ref,
      name,
      link,
      agent,
      machine: isMachineHit(agent, isHead, now / 1000 - ref.sentAt),
      atMs: now,
    });
  };

  /** Record an open when the token checks out; the caller answers the image whatever happens. */
  const open = (token: string, ip: string, agent: string | undefined, isHead: boolean) => {
    const ref = decodeMessage(secret, token);
    if (ref) record(ip, agent, isHead, ref, 'opened', null, token);
  };

  const identity = createClickIdentity(services.pool, secret);

  /**
   * Where a click goes, recorded; null when the token, the signature or the destination does not check out. At
   * once when the account's site is known (click-identity.ts), else a promise of it.
   */
  const click = (
    rest: string,
    link: unknown,
    ip: string,
    agent: string | undefined,
    isHead: boolean,
  ): string | null | Promise<string> => {
    if (typeof link !== 'string' || link.length > maxLinkLength) return null;
    const slash = rest.indexOf('/');
    if (slash < 0) return null;
    const ref = decodeMessage(secret, rest.slice(0, slash));
    if (!ref || !verifyLink(secret, ref.accountId, ref.emailId, link, rest.slice(slash + 1))) return null;
    const target = redirectTarget(link);
    if (!target) return null;
    record(ip, agent, isHead, ref, 'clicked', link, rest);
    // A page of the account's own site learns who the reader is (the site script); any other site does not.
    try {
      const answer = identity.target(target, ref.accountId, ref.personId);
      return typeof answer === 'string' ? answer : answer.catch(() => target);
    } catch {
      return target;
    }
  };

  const clientIp = (request: IncomingMessage): string => {
    if (trustProxy) {
      const forwarded = request.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
      if (first) return first;
    }
    return request.socket.remoteAddress ?? '';
  };

  const endpoints: TrackingEndpoints = {
    serverFactory(handler, options) {
      const server = http.createServer((request, response) => {
        if (!endpoints.handle(request, response)) handler(request, response);
      });
      server.keepAliveTimeout =
        typeof options.keepAliveTimeout === 'number' ? options.keepAliveTimeout : 72_000;
      server.requestTimeout = typeof options.requestTimeout === 'number' ? options.requestTimeout : 0;
      server.setTimeout(typeof options.connectionTimeout === 'number' ? options.connectionTimeout : 0);
      return server;
    },

    handle(request, response) {
      const url = request.url ?? '';
      const isOpen = url.startsWith(openPath);
      if (!isOpen && !url.startsWith(clickPath)) return false;
      const method = request.method;
      if (method !== 'GET' && method !== 'HEAD') return false;
      const isHead = method === 'HEAD';
      const query = url.indexOf('?');
      const rest = url.slice((isOpen ? openPath : clickPath).length, query < 0 ? url.length : query);
      if (isOpen) {
        whenRoom(() => {
          open(rest, clientIp(request), request.headers['user-agent'], isHead);
          // The image as a latin1 string: Node then sends it in the same write as the header.
          response.writeHead(200, pixelAnswer(request));
          if (isHead) response.end();
          else response.end(pixelText, 'latin1');
        });
        return true;
      }
      const search = query < 0 ? '' : url.slice(query + 1);
      const links = search.length > keptQueryLength ? destinationsOf(search) : recentDestinations(search);
      const answer = (target: string | null) => {
        if (target) response.writeHead(302, { location: target, ...redirectAnswer(request) }).end();
        else response.writeHead(404, invalidAnswer(request)).end(isHead ? undefined : invalidLinkPage);
      };
      whenRoom(() => {
        const target =
          links.length === 1
            ? click(rest, links[0], clientIp(request), request.headers['user-agent'], isHead)
            : null;
        if (target instanceof Promise) void target.then(answer);
        else answer(target);
      });
      return true;
    },

    register(app) {
      const hits = new HitBuffer(services.pool, options);
      buffer = hits;
      buffers.set(app, hits);
      app.addHook('onClose', async () => hits.close());
      // The hit is recorded in whenRoom's callback itself, so the room it was given is still there.
      const openRoute = (request: FastifyRequest, reply: FastifyReply) =>
        new Promise<FastifyReply>((resolve) =>
          whenRoom(() => {
            open(
              (request.params as { '*'?: string })['*'] ?? '',
              request.ip,
              request.headers['user-agent'],
              request.method === 'HEAD',
            );
            resolve(reply.code(200).headers(pixelHeaders).send(pixel));
          }),
        );
      const clickRoute = async (request: FastifyRequest, reply: FastifyReply) => {
        const target = await new Promise<string | null>((resolve) =>
          whenRoom(() =>
            resolve(
              click(
                (request.params as { '*'?: string })['*'] ?? '',
                (request.query as Record<string, unknown>).u,
                request.ip,
                request.headers['user-agent'],
                request.method === 'HEAD',
              ),
            ),
          ),
        );
        if (!target) return reply.code(404).headers(invalidHeaders).send(invalidLinkPage);
        return reply
          .code(302)
          .header('location', target)
          .header('cache-control', 'no-store, max-age=0')
          .header('referrer-policy', 'no-referrer')
          .send();
      };
      // The bare prefixes too, so that an emptied token gets the image or the page and not the web app.
      for (const url of [`${openPath}*`, openPath.slice(0, -1)])
        app.get(url, { schema: { hide: true } }, openRoute);
      for (const url of [`${clickPath}*`, clickPath.slice(0, -1)])
        app.get(url, { schema: { hide: true } }, clickRoute);
    },
  };
  return endpoints;
}
