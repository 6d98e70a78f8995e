import type { Config } from './config.ts';
import type { Database } from './db/connection.ts';
import type { EventStore } from './db/event-store.ts';
import type { Storage } from './lib/storage.ts';
import type pg from 'pg';

/** What route handlers and jobs are given: no globals, so tests build their own. */
export interface Services {
  db: Database;
  /** The pool under `db`, for what Kysely cannot do (COPY). */
  pool: pg.Pool;
  config: Config;
  /** Signs link tokens; from SESSION_SECRET or generated into the data dir. */
  secret: string;
  google: GoogleVerifier;
  storage: Storage;
  /** Where events are read from (EVENT_STORE): PostgreSQL's tables or ClickHouse (db/event-store.ts). */
  events: EventStore;
}

export interface GoogleIdentity {
  sub: string;
  email: string;
  name: string | null;
}

/** Declared here, in the toolkit, so that Services names no feature; features/auth/google.ts makes one. */
export interface GoogleVerifier {
  isConfigured: boolean;
  /** Verify a Google ID token's signature, audience, issuer and expiry; throws a 4xx AppError otherwise. */
  verify(idToken: string): Promise<GoogleIdentity>;
}
