import fs from 'node:fs';
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import { hasScopes, invalidDomainName, messages } from '@herald/contracts';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { Database } from '../db/connection.ts';
import { withAccount } from '../db/tenancy.ts';
import { requestDuration } from '../lib/prometheus.ts';
import type { Services } from '../services.ts';
import { AuditTrail, routeAuditEntry, writeAuditEntry } from './audit.ts';
import { AppError, forbidden, unauthorized } from './errors.ts';
import type { RouteDef, Session } from './route.ts';
import { readSession } from './session-cookie.ts';
import { registerSecurityHeaders } from './security-headers.ts';

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * What the features give the HTTP app; the composition root (app/build-app.ts) fills it in, so this toolkit
 * imports no feature (docs/architecture.md).
 */
export interface HttpAppParts {
  routes: RouteDef[];
  /** Endpoints answered by the HTTP server before Fastify routes anything (the tracking pixel and click redirect). */
  endpoints: {
    serverFactory(
      handler: (request: IncomingMessage, response: ServerResponse) => void,
      options: Record<string, unknown>,
    ): http.Server;
    /** The same endpoints as Fastify routes, and what they do when the app closes. */
    register(app: FastifyInstance): void;
  };
  /** The session an API key (`Authorization: Bearer`) acts as; undefined for a wrong key. */
  sessionFromApiKey(services: Services, key: string): Promise<Session | undefined>;
}

export interface MountedRoute {
  method: string;
  url: string;
}
const mountedByApp = new WeakMap<FastifyInstance, MountedRoute[]>();

/** Every route an app built by buildHttpApp serves (HEAD routes aside), declared with route() or not. */
export function mountedRoutes(app: FastifyInstance): MountedRoute[] {
  return [...(mountedByApp.get(app) ?? [])];
}

/** The whole HTTP app: API under /v1, OpenAPI at /v1/openapi.json, the built web app everywhere else. */
export async function buildHttpApp(services: Services, parts: HttpAppParts): Promise<FastifyInstance> {
  const { routes, endpoints: tracking } = parts;
  const app = Fastify({
    serverFactory: tracking.serverFactory,
    logger: services.config.logLevel === 'silent' ? false : { level: services.config.logLevel },
    bodyLimit: 1024 * 1024,
    trustProxy: services.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  });
  // Every route the app serves, for the tests that walk them all (mountedRoutes).
  const mounted: MountedRoute[] = [];
  mountedByApp.set(app, mounted);
  app.addHook('onRoute', (options) => {
    for (const method of [options.method].flat())
      if (method !== 'HEAD') mounted.push({ method, url: options.url });
  });
  // Every answer's duration, by route pattern (/v1/people/:id, not the URL with its ids): one observe, no await. The
  // tracking pixel and redirect are answered before Fastify (tracking.endpoints.ts) and are not in it.
  app.addHook('onResponse', (request, reply, done) => {
    requestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_class: `${Math.floor(reply.statusCode / 100)}xx`,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(cookie);
  // Files PUT to signed upload URLs stream straight to storage; the upload route checks type and size.
  app.addContentTypeParser(
    ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'text/csv', 'application/octet-stream'],
    (_request, payload, done) => done(null, payload),
  );
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Herald API', version: '1' },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'herald_session' } } },
    },
    transform: jsonSchemaTransform,
    // Named schemas (the recursive segment condition tree) become components that the operations reference.
    transformObject: jsonSchemaTransformObject,
  });

  // While the server closes, requests in hand are answered with `Connection: close`, so their keep-alive
  // connections end with the answer instead of holding the close open until they time out.
  let isClosing = false;
  app.addHook('preClose', async () => {
    isClosing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    if (isClosing) reply.header('connection', 'close');
    // A route called from any site's pages (`cors`): its errors too, so that the page's script can read them.
    if ((request.routeOptions.config as { cors?: boolean } | undefined)?.cors)
      reply.header('access-control-allow-origin', '*');
  });
  registerSecurityHeaders(app, services.config);

  app.addHook('onRequest', async (request) => {
    if (!unsafeMethods.has(request.method) || !request.url.startsWith('/v1/')) return;
    const config = request.routeOptions.config as { csrf?: boolean } | undefined;
    if (config?.csrf === false || request.headers.authorization) return;
    if (!isSameOrigin(request, services.config.publicUrl)) {
      throw new AppError('ForbiddenError', messages.crossSiteRefused, { errorCode: 'csrf' });
    }
  });

  // Before the routes, so that a route mounted in a scope of its own (anyBody) inherits it.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const body = toErrorBody(error);
    if (body.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    if (body.retryAfter) void reply.header('retry-after', String(body.retryAfter));
    return reply.code(body.statusCode).send(body);
  });

  // The same endpoints as plain routes (for inject), and the hit buffer flushed when the app closes.
  tracking.register(app);
  for (const def of routes) {
    if (def.anyBody || def.rawBody)
      await app.register(async (scope) => mountWithAnyBody(scope, services, parts, def));
    else mountRoute(app, services, parts, def);
  }
  for (const def of routes.filter((r) => r.cors))
    app.options(def.url, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', def.method)
        .header('access-control-allow-headers', 'authorization, content-type, content-encoding, x-write-key')
        .header('access-control-max-age', '86400')
        .code(204)
        .send(),
    );
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The ingestion API is called from customers' sites: answer the browser's preflight.
  app.options('/v1/ingest*', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', 'content-type, x-write-key')
      .header('access-control-max-age', '86400')
      .code(204)
      .send(),
  );

  await serveWebApp(app, services.config.webDistDir);
  return app;
}

/** The session each request acts as, settled in preValidation. */
const sessions = new WeakMap<FastifyRequest, Session | undefined>();

function mountRoute(app: FastifyInstance, services: Services, parts: HttpAppParts, def: RouteDef): void {
  app.route({
    method: def.method,
    url: def.url,
    config: { csrf: def.csrf, cors: def.cors === true },
    ...(def.bodyLimit ? { bodyLimit: def.bodyLimit } : {}),
    schema: {
      summary: def.summary,
      ...(def.body
        ? { body: def.example === undefined ? def.body : def.body.meta({ examples: [def.example] }) }
        : {}),
      ...(def.query ? { querystring: def.query } : {}),
      ...(def.params ? { params: def.params } : {}),
      ...(def.response ? { response: { [def.status]: def.response } } : {}),
      ...(def.auth === 'session' ? { security: [{ session: [] }] } : {}),
    },
    // Who is asking is settled before the input is validated: a caller without a session learns nothing of a
    // route's input from its answer (401, not a 400 naming the fields; docs/security.md).
    preValidation: async (request) => {
      let session: Session | undefined;
      const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (bearer) {
        // An API key acts as the account's owner; a wrong key is refused even on public routes.
        session = await parts.sessionFromApiKey(services, bearer.trim());
        if (!session) throw unauthorized('Invalid API key.');
      } else if (def.auth === 'session' || request.cookies.herald_session) {
        session = await readSession(services, request);
      }
      if (def.auth === 'session') {
        if (!session) throw unauthorized();
        if (!hasScopes(session, def.scopes)) {
          throw forbidden(
            `You need the ${def.scopes.join(', ')} permission${def.scopes.length > 1 ? 's' : ''} to do this.`,
          );
        }
      }
      sessions.set(request, session);
    },
    handler: async (request, reply) => {
      const session = sessions.get(request);
      const audit = new AuditTrail();
      const context = (db: Database) => ({
        body: request.body,
        query: request.query,
        params: request.params,
        request,
        reply,
        services,
        db,
        session,
        audit,
      });
      const run = (db: Database) => def.handler(context(db));
      // Every signed-in write leaves one audit entry in its own transaction, after the handler succeeded (docs/security.md).
      const result =
        def.auth === 'session' && session
          ? await withAccount(services.db, session.accountId, async (db) => {
              const isWrite = def.method !== 'GET' && !def.audit?.isRead;
              const before = isWrite && def.audit?.before ? await def.audit.before(context(db)) : undefined;
              const answer = await run(db);
              if (isWrite && !audit.isIgnored && reply.statusCode < 400)
                await writeAuditEntry(db, routeAuditEntry(audit, request, def, session, answer, before));
              return answer;
            })
          : await run(services.db);
      if (reply.sent) return reply;
      // A handler may set another status for its answer itself (GET /readyz: 503 when not ready); else the route's.
      if (reply.statusCode === 200) reply.code(def.status);
      return def.status === 204 ? reply.send() : result;
    },
  });
}

/** In a scope of its own, so that only this route reads any content type and forgives unreadable JSON. */
function mountWithAnyBody(
  scope: FastifyInstance,
  services: Services,
  parts: HttpAppParts,
  def: RouteDef,
): void {
  // A gzip-compressed body (Content-Encoding: gzip, as RudderStack's SDKs send) is read decompressed; the body limit
  // holds for both the bytes received and the bytes they expand to.
  scope.addHook('preParsing', async (request, _reply, payload) => {
    if (request.headers['content-encoding'] !== 'gzip') return payload;
    const gunzip = zlib.createGunzip() as Transform & { receivedEncodedLength?: number };
    let received = 0;
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      gunzip.receivedEncodedLength = received;
    });
    gunzip.on('error', (error: Error & { statusCode?: number }) => {
      error.statusCode = 400;
      error.message = 'The body is not valid gzip.';
    });
    payload.pipe(gunzip);
    return gunzip;
  });
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, text, done) =>
    done(null, def.rawBody ? String(text) : readLeniently(String(text))),
  );
  mountRoute(scope, services, parts, def);
}

function readLeniently(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A cookie-authenticated write must come from this app's own pages. Browsers say where a request
 * comes from (Sec-Fetch-Site, Origin); a request that says neither is refused too.
 */
function isSameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.origin;
  if (origin) {
    const allowed = new Set([new URL(publicUrl).origin, `${request.protocol}://${request.host}`]);
    return allowed.has(origin);
  }
  return site === 'same-origin' || site === 'none';
}

/** The spec's messages that end without a full stop. */
const unpunctuatedMessages = new Set<string>([invalidDomainName]);

function toErrorBody(error: FastifyError) {
  if (error instanceof AppError) return error.toBody();
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0]!;
    const field = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const text = first.message ?? 'Invalid input.';
    // Messages written for users (capitalised sentences) stand alone; zod's own get the field's name.
    const isOwnMessage =
      (/^[A-Z].*[.!?]$/.test(text) && !/^Invalid input/.test(text)) || unpunctuatedMessages.has(text);
    const message = isOwnMessage || !field ? text : `${field}: ${text}`;
    return new AppError('BadRequestError', message, {
      extra: { issues: error.validation.map((v) => ({ path: v.instancePath, message: v.message ?? '' })) },
    }).toBody();
  }
  // PostgreSQL cannot store a NUL character in text or jsonb: whichever field or parameter carried one, it is the request's fault.
  if (error.code === '22021' || error.code === '22P05') {
    return new AppError('BadRequestError', 'Text cannot contain the NUL character (\\u0000).').toBody();
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('BadRequestError', messages.invalidJson).toBody();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BadRequestError', 'The request body is empty; send a JSON object.').toBody();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { statusCode: 413, name: 'PayloadTooLargeError', message: messages.bodyTooLarge };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        statusCode: 415,
        name: 'UnsupportedMediaTypeError',
        message: 'Send the body as application/json.',
      };
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { statusCode: error.statusCode, name: 'BadRequestError', message: error.message };
  }
  return new AppError('InternalError', messages.internal).toBody();
}

/** Serve the built web app, with index.html for every path that is not a file (client-side routes). */
async function serveWebApp(app: FastifyInstance, distDir: string): Promise<void> {
  const indexFile = path.join(distDir, 'index.html');
  const hasWeb = fs.existsSync(indexFile);
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: distDir,
      // Looked up per request, so a rebuilt web app is served without a restart.
      wildcard: true,
      index: false,
      setHeaders: (res, filePath) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    // The bare address is the app too (the static files answer a directory with 403).
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'no-cache').type('text/html').send(fs.createReadStream(indexFile)),
    );
  }
  app.setNotFoundHandler(async (request, reply) => {
    if (
      request.url.startsWith('/v1/') ||
      request.url.startsWith('/files/') ||
      request.url === '/v1' ||
      request.method !== 'GET'
    ) {
      return reply
        .code(404)
        .send(
          new AppError('NotFoundError', `No route ${request.method} ${request.url.split('?')[0]}.`).toBody(),
        );
    }
    if (!hasWeb) {
      return reply
        .code(503)
        .type('text/plain')
        .send('The web app is not built yet: run `npm run build` (npm start does it for you).');
    }
    reply.header('cache-control', 'no-cache');
    return reply.type('text/html').send(fs.createReadStream(indexFile));
  });
}
