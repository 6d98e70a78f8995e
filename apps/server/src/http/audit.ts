import { sql } from 'kysely';
import type { Database } from '../db/connection.ts';

type Fields = Record<string, unknown>;
/** The session as the log needs it (route.ts's Session; not imported, since route.ts imports this module). */
interface Actor {
  id: string;
  userId: number;
}
/** What changed, field by field: `{ name: { before: 'Old', after: 'New' } }` (either side absent when unknown). */
export type AuditChanges = Record<string, { before?: unknown; after?: unknown }>;

/** Fields never written to the log, whatever their value: credentials and codes. */
const secretField = /password|secret|token|^code$|recoveryCode|key$/i;
const longestText = 200;
const mostFields = 40;

/**
 * The audit entry of one request, filled in by the route layer and enriched by handlers (docs/security.md, "Audit
 * log"): `change()` names the resource and what changed in it; `ignore()` is for a write that changes nothing a team
 * member would look for (a read done with POST).
 */
export class AuditTrail {
  resourceType?: string;
  resourceId?: string;
  changes?: AuditChanges;
  isIgnored = false;

  /** The resource the request changed and its fields before → after; only the fields that differ are kept. */
  change(
    resourceType: string,
    id: string | number | null,
    before: Fields | null,
    after: Fields | null,
  ): void {
    this.resourceType = resourceType;
    this.resourceId = id === null ? undefined : String(id);
    this.changes = { ...this.changes, ...diffFields(before, after) };
  }

  /** The request changes nothing worth an entry (a search or preview sent with POST). */
  ignore(): void {
    this.isIgnored = true;
  }
}

/** The fields that differ between before and after, secrets masked and long text cut. */
export function diffFields(before: Fields | null, after: Fields | null): AuditChanges {
  const changes: AuditChanges = {};
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const name of [...names].slice(0, mostFields)) {
    const old = before ? shown(name, before[name]) : undefined;
    const now = after ? shown(name, after[name]) : undefined;
    if (before && after && JSON.stringify(old) === JSON.stringify(now)) continue;
    changes[name] = {
      ...(before && name in before ? { before: old } : {}),
      ...(after && name in after ? { after: now } : {}),
    };
  }
  return changes;
}

function shown(name: string, value: unknown): unknown {
  if (secretField.test(name) && value !== null && value !== undefined) return '[hidden]';
  if (value instanceof Date) return value.toISOString();
  // Long text is cut; lists and objects (a member's scopes, a flow's settings) are kept up to ten times that.
  const isText = typeof value === 'string';
  const text = isText ? value : JSON.stringify(value);
  const longest = isText ? longestText : longestText * 10;
  if (text !== undefined && text.length > longest)
    return `${text.slice(0, longest)}… (${text.length} characters)`;
  return value;
}

export interface AuditEntry {
  accountId: number;
  /** A member's session, or the API key's (whose id starts with `api-key:`). */
  session: Actor;
  ip: string;
  action: string;
  resourceType: string;
  resourceId: string | null;
  changes: AuditChanges | null;
}

/** Whether the session is the account's API key rather than a signed-in member. */
export function isApiKeySession(session: Pick<Actor, 'id'>): boolean {
  return session.id.startsWith('api-key:');
}

/** Append one entry: a single INSERT, the actor's label read in the same statement. */
export async function writeAuditEntry(db: Database, entry: AuditEntry): Promise<void> {
  const isKey = isApiKeySession(entry.session);
  const label = isKey
    ? sql`(select 'API key …' || coalesce(api_key_hint, '') from accounts where id = ${entry.accountId})`
    : sql`(select email from users where id = ${entry.session.userId})`;
  await sql`
    insert into audit_log (account_id, actor_kind, actor_user_id, actor_label, ip, action, resource_type, resource_id, changes)
    values (${entry.accountId}, ${isKey ? 'api_key' : 'member'}, ${isKey ? null : entry.session.userId},
      coalesce(${label}, 'unknown'), ${entry.ip}, ${entry.action}, ${entry.resourceType}, ${entry.resourceId},
      ${entry.changes && Object.keys(entry.changes).length > 0 ? JSON.stringify(entry.changes) : null}::jsonb)
  `.execute(db);
}

/** The resource a route pattern names: `/v1/segments/:id/duplicate` → `segments`. */
export function resourceOfUrl(url: string): string {
  const parts = url.replace(/^\/v1\//, '').split('/');
  return parts[0] || 'account';
}

/**
 * The entry the route layer writes after a handler succeeded: the handler's `change()` if it gave one, else the
 * route's resource, the id from its params or its answer, and the body's fields as the after side.
 */
export function routeAuditEntry(
  trail: AuditTrail,
  request: { method: string; ip: string; params: unknown; body: unknown },
  def: { method: string; url: string; audit?: { resource?: string; before?: unknown; compare?: 'answer' } },
  session: Actor & { accountId: number },
  result: unknown,
  before?: unknown,
): AuditEntry {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const answer = (result && typeof result === 'object' ? result : {}) as Record<string, unknown>;
  const paramId = params.id ?? Object.values(params)[0];
  const id = trail.resourceId ?? paramId ?? answer.id;
  const body =
    request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? request.body : null;
  return {
    accountId: session.accountId,
    session,
    ip: request.ip,
    action: `${def.method} ${def.url}`,
    resourceType: trail.resourceType ?? def.audit?.resource ?? resourceOfUrl(def.url),
    resourceId: id === undefined || id === null ? null : String(id),
    changes: trail.changes ?? routeChanges(def, body as Fields | null, before, result),
  };
}

/**
 * A route's changes without a handler's `change()`: a deletion shows the fields of what it removed (from its
 * `audit.before`); an action without a body whose route says `compare: 'answer'` (a domain check, a new API key) shows
 * the fields its answer shares with the read before that differ; otherwise the body's fields (bodyChanges).
 */
function routeChanges(
  def: { method: string; audit?: { before?: unknown; compare?: 'answer' } },
  body: Fields | null,
  before: unknown,
  result: unknown,
): AuditChanges | null {
  const read = def.audit?.before ? single(before) : undefined;
  if (def.method === 'DELETE' && read) return diffFields(read, null);
  if (def.audit?.compare === 'answer' && read) {
    const answer = closest(result, Object.keys(read));
    const shared = Object.keys(read).filter((name) => name in answer);
    const pick = (from: Fields) => Object.fromEntries(shared.map((n) => [n, from[n]]));
    return diffFields(pick(read), pick(answer));
  }
  return body ? bodyChanges(body, read === undefined ? undefined : before, result) : null;
}

/** Of an answer and the objects inside it (`{ domain: {...}, message }`), the one sharing most of `names`. */
function closest(value: unknown, names: string[]): Fields {
  const isObject = (v: unknown): v is Fields => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(value)) return {};
  const shared = (v: Fields) => names.filter((n) => n in v).length;
  return [value, ...Object.values(value).filter(isObject)].reduce((best, v) =>
    shared(v) > shared(best) ? v : best,
  );
}

/** An object, or the one object wrapped in it (`{ domain: {...} }`); undefined for anything else. */
function single(value: unknown): Fields | undefined {
  const isObject = (v: unknown): v is Fields => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(value)) return undefined;
  const values = Object.values(value);
  return values.length === 1 && isObject(values[0]) ? values[0] : value;
}

/**
 * The body's fields, after as the answer shows them (else as sent), and before as the route's `audit.before` read
 * them; an answer or a read wrapped in one object (`{ segment: {...} }`) is unwrapped.
 */
function bodyChanges(body: Fields, before: unknown, result: unknown): AuditChanges {
  const names = Object.keys(body);
  const pick = (from: Fields) => Object.fromEntries(names.filter((n) => n in from).map((n) => [n, from[n]]));
  const answer = unwrap(result, names);
  const after = { ...body, ...(answer ? pick(answer) : {}) };
  if (before === undefined) return diffFields(null, after);
  return diffFields(pick(unwrap(before, names) ?? {}), after);
}

/** The object that holds the body's fields: the value itself, or the one object inside it (`{ segment: {...} }`). */
function unwrap(value: unknown, names: string[]): Fields | undefined {
  const isObject = (v: unknown): v is Fields => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(value)) return undefined;
  if (names.some((n) => n in value)) return value;
  return Object.values(value).find((v): v is Fields => isObject(v) && names.some((n) => n in v)) ?? value;
}
