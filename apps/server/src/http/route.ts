import type { ScopeId, ScopeState } from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Database } from '../db/connection.ts';
import type { Services } from '../services.ts';
import type { AuditTrail } from './audit.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
/** public: anyone; session: a signed-in team member of the current account. */
export type Auth = 'public' | 'session';

/** The signed-in user as the current account sees them. */
export interface Session {
  id: string;
  userId: number;
  accountId: number;
  teamMemberId: number;
  isOwner: boolean;
  scopes: ScopeState[];
}

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

export interface RouteContext<A extends Auth, B, Q, P> {
  body: B;
  query: Q;
  params: P;
  request: FastifyRequest;
  reply: FastifyReply;
  services: Services;
  /** For signed-in routes, a transaction that sees only the session's account (db/tenancy.ts). */
  db: Database;
  session: A extends 'session' ? Session : Session | undefined;
  /** The audit entry a signed-in write records in its transaction; `audit.change()` says what changed (http/audit.ts). */
  audit: AuditTrail;
}

export interface RouteSpec<
  A extends Auth,
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  P extends z.ZodType | undefined,
  R extends z.ZodType | undefined,
> {
  method: Method;
  url: string;
  auth: A;
  /** Scopes the team member needs (owners have all). */
  scopes?: ScopeId[];
  summary: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Schema of the 2xx answer; omitted for 204 routes. */
  response?: R;
  /** Status of a success; 200 unless set (204 routes return nothing). */
  status?: 200 | 201 | 202 | 204;
  /** Cookie-authenticated writes need a same-origin request; a route called by third parties opts out. */
  csrf?: boolean;
  /** Largest request body in bytes, when the app's 1 MB default is too small (emails carry HTML and editor state). */
  bodyLimit?: number;
  /** Any bytes are a body: JSON when they parse, else the text itself, never a refusal (error reports from failing clients). */
  anyBody?: boolean;
  /** The body as the exact text received, whatever its type (signed webhooks check the signature over these bytes). */
  rawBody?: boolean;
  /** Called from any site's pages: every answer allows any origin and the browser's preflight (OPTIONS) is answered. */
  cors?: true;
  /** A valid body, shown in the OpenAPI document and sent by the cross-account probe test. */
  example?: B extends z.ZodType ? z.input<B> : never;
  /** Instance-level routes (health, config, the dev mailbox, signed files) hold no account's data. */
  tenant?: false;
  /**
   * The audit entry's before → after (http/audit.ts): `before` reads the resource in the same transaction before the
   * handler runs; the fields the body names are compared with the handler's answer (or the body). `resource` names it.
   */
  audit?: {
    resource?: string;
    before?: (ctx: RouteContext<A, Infer<B>, Infer<Q>, Infer<P>>) => Promise<unknown>;
    /** A read sent with POST (a count, a preview): it changes nothing, so it writes no entry. */
    isRead?: true;
    /** An action without a body: before → after are the fields `before` and the answer share (http/audit.ts). */
    compare?: 'answer';
  };
  handler: (
    ctx: RouteContext<A, Infer<B>, Infer<Q>, Infer<P>>,
  ) => Promise<R extends z.ZodType ? z.infer<R> : void>;
}

/** A route with its generics erased, as the router and the route-walking tests see it. */
export interface RouteDef {
  method: Method;
  url: string;
  auth: Auth;
  scopes: ScopeId[];
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  response?: z.ZodType;
  status: number;
  csrf: boolean;
  bodyLimit?: number;
  anyBody?: boolean;
  rawBody?: boolean;
  cors?: true;
  example?: unknown;
  tenant: boolean;
  audit?: {
    resource?: string;
    before?: (ctx: RouteContext<Auth, unknown, unknown, unknown>) => Promise<unknown>;
    isRead?: true;
    compare?: 'answer';
  };
  handler: (ctx: RouteContext<Auth, unknown, unknown, unknown>) => Promise<unknown>;
}

/** Declare one route; the feature's route table is a list of these. */
export function route<
  A extends Auth,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<A, B, Q, P, R>): RouteDef {
  return {
    ...spec,
    scopes: spec.scopes ?? [],
    status: spec.status ?? (spec.response ? 200 : 204),
    csrf: spec.csrf ?? true,
    tenant: spec.tenant ?? true,
    handler: spec.handler as RouteDef['handler'],
    audit: spec.audit as RouteDef['audit'],
  };
}
