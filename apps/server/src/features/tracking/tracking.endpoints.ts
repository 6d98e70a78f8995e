/**
 * The open pixel and the click redirect: public, no session, no body, no schema. They are registered on Fastify
 * as plain handlers (not through route(), which reads sessions and API keys), check the token by hand, answer at
 * once and leave the hit in a buffer (hit-buffer.ts). A hit that does not check out is answered the same way a
 * valid one would be for the pixel (the image), and with a page of Herald's own for a click; it writes nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { HitBuffer, type HitBufferOptions } from './hit-buffer.ts';
import { isMachineHit, userAgentClass } from './machine-hits.ts';
import { clickPath, openPath } from './tracking-links.ts';
import { decodeMessage, maxLinkLength, verifyLink, type DecodedMessage } from './tracking-token.ts';

/** A transparent 1x1 GIF (43 bytes). */
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Hits recorded per second from one address for one message's pixel or one link; more are answered, not recorded. */
export const hitsPerSecond = 3;

/** The page a click that does not check out gets: Herald's own, with no link anywhere. */
const invalidLinkPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Link not available</title>
<style>body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f8f9fa;color:#212529;display:flex;min-height:100vh;align-items:center;justify-content:center}main{background:#fff;border:1px solid #dee2e6;border-radius:8px;padding:32px;max-width:420px;margin:16px}h1{font-size:20px;margin:0 0 8px}p{margin:0;line-height:1.5;color:#495057}</style></head>
<body><main><h1>This link is not available</h1><p>The link you followed is incomplete or was changed after the email was sent. Open it again from the email, or copy the whole address into your browser.</p></main></body></html>`;

/** Counts hits per (address, URL) within the current second; the whole table starts afresh each second. */
class Throttle {
  private second = 0;
  private counts = new Map<string, number>();

  allow(key: string, nowMs: number): boolean {
    const second = Math.floor(nowMs / 1000);
    if (second !== this.second || this.counts.size > 500_000) {
      this.second = second;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count <= hitsPerSecond;
  }
}

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
function redirectTarget(url: string): string | null {
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Register GET (and HEAD) /t/o/{token} and /t/c/{token}/{signature}?u={url}, and flush the buffer when the app closes. */
export function registerTracking(app: FastifyInstance, services: Services, options: HitBufferOptions = {}): void {
  const buffer = new HitBuffer(services.pool, options);
  buffers.set(app, buffer);
  app.addHook('onClose', async () => buffer.close());
  const throttle = new Throttle();
  const secret = services.secret;

  const record = (request: FastifyRequest, ref: DecodedMessage, name: 'opened' | 'clicked', link: string | null, key: string) => {
    const now = Date.now();
    if (!throttle.allow(`${request.ip} ${key}`, now)) return;
    const agent = userAgentClass(request.headers['user-agent']);
    const machine = isMachineHit(agent, request.method === 'HEAD', now / 1000 - ref.sentAt);
    buffer.add({ ref, name, link, agent, machine, atMs: now });
  };

  const open = (request: FastifyRequest, reply: FastifyReply) => {
    const token = (request.params as { '*'?: string })['*'] ?? '';
    const ref = decodeMessage(secret, token);
    if (ref) record(request, ref, 'opened', null, token);
    return reply.code(200).header('content-type', 'image/gif').header('cache-control', 'no-store, max-age=0').send(pixel);
  };

  const click = (request: FastifyRequest, reply: FastifyReply) => {
    const rest = (request.params as { '*'?: string })['*'] ?? '';
    const slash = rest.indexOf('/');
    const token = slash < 0 ? rest : rest.slice(0, slash);
    const signature = slash < 0 ? '' : rest.slice(slash + 1);
    const link = (request.query as Record<string, unknown>).u;
    const ref = typeof link === 'string' && link.length <= maxLinkLength ? decodeMessage(secret, token) : null;
    const target = ref && verifyLink(secret, ref.accountId, ref.emailId, link as string, signature) ? redirectTarget(link as string) : null;
    if (!ref || !target) {
      return reply.code(404).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send(invalidLinkPage);
    }
    record(request, ref, 'clicked', link as string, rest);
    return reply.code(302).header('location', target).header('cache-control', 'no-store, max-age=0').header('referrer-policy', 'no-referrer').send();
  };

  // The bare prefixes too, so that an emptied token gets the image or the page and not the web app.
  for (const url of [`${openPath}*`, openPath.slice(0, -1)]) app.get(url, { schema: { hide: true } }, open);
  for (const url of [`${clickPath}*`, clickPath.slice(0, -1)]) app.get(url, { schema: { hide: true } }, click);
}
