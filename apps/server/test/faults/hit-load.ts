import http from 'node:http';
import { sql } from 'kysely';
import type { Database } from '../../src/db/connection.ts';
import { encodeMessage, signLink } from '../../src/features/tracking/tracking-token.ts';

const browser =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

/** A GET on 127.0.0.1 (a browser's user agent): its status and body. `agent`: none, a connection of its own. */
export function httpGet(
  port: number,
  path: string,
  agent?: http.Agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path, agent: agent ?? false, headers: { 'user-agent': browser } },
      (response) => {
        let body = '';
        response.setEncoding('latin1');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      },
    );
    request.setTimeout(10_000, () =>
      request.destroy(new Error(`GET ${path} on port ${port}: no answer in 10 s`)),
    );
    request.on('error', reject);
  });
}

/** One tracking hit: its path, what it records (person, opened or clicked, link) and the API process it goes to. */
interface Hit {
  url: string;
  key: string;
  api: number;
}

export interface HitLoadOptions {
  db: Database;
  /** The server secret the Herald processes sign tracking URLs with. */
  secret: string;
  accountId: number;
  broadcastId: number;
  emailId: number;
  /** Recipients of the broadcast: `total` hits are shared among their messages. */
  people: number;
  /** Destinations of the email's links. */
  links: string[];
  total: number;
  /** The API processes' ports: hit i goes to ports[i mod n]. */
  ports: number[];
  /** Requests in flight per API process, each on a keep-alive connection of its own. */
  inFlight: number;
  /** Whether the broadcast is finished (no row left to send). */
  finished: () => Promise<boolean>;
}

/**
 * Open pixels and click redirects of a broadcast's messages, made as their deliveries are recorded as sent (with the
 * token and link signatures the sender threads make, tracking-token.ts): each message gets its share of `total`,
 * taken in turn over its pixel and its links, so that no pixel or link gets more than three hits (the endpoints record
 * at most three a second per address and pixel or link, tracking.endpoints.ts `hitsPerSecond`: more would be answered
 * and rightly not stored). Each API process gets its share at `inFlight` requests at a time over keep-alive
 * connections. Resolves with what was answered (200 or 302), by process and by `<person> <opened|clicked> <link>`.
 */
export function sendHitLoad(options: HitLoadOptions) {
  const { db, secret, accountId, broadcastId, emailId, people, links, total, ports, inFlight } = options;
  const perMessage = Math.floor(total / people);
  const extra = total % people;
  if (perMessage + (extra ? 1 : 0) > 3 * (links.length + 1))
    throw new Error(`${total} hits for ${people} messages need more than ${links.length} links`);
  const linkTails = links.map(
    (link) => `${signLink(secret, accountId, emailId, link)}?u=${encodeURIComponent(link)}`,
  );
  const queues: Hit[][] = ports.map(() => []);
  const taken = ports.map(() => 0);
  let made = 0;
  let producing = true;
  let wake = () => {};
  let woken = new Promise<void>((resolve) => (wake = resolve));
  /** Wake the requesters waiting for hits. */
  const notify = () => {
    wake();
    woken = new Promise<void>((resolve) => (wake = resolve));
  };
  const seen = new Set<number>();
  const answeredByApi = ports.map(() => 0);
  const answered = new Map<string, number>();
  const failures: string[] = [];
  let firstAt = 0;
  let lastAt = 0;
  /** Hits answered in each second since the first was sent. */
  const perSecond: number[] = [];

  const addMessage = (row: { id: number; personId: number; variant: number }) => {
    const count = perMessage + (seen.size < extra ? 1 : 0);
    seen.add(row.id);
    const ref = { accountId, deliveryId: row.id, personId: row.personId, emailId, variant: row.variant };
    const token = encodeMessage(
      secret,
      { ...ref, sourceKind: 'broadcast', sourceId: broadcastId },
      Date.now() - 60_000,
    );
    for (let k = 0; k < count; k++) {
      const target = k % (links.length + 1);
      const hit =
        target === 0
          ? { url: `/t/o/${token}`, key: `${row.personId} opened ` }
          : {
              url: `/t/c/${token}/${linkTails[target - 1]}`,
              key: `${row.personId} clicked ${links[target - 1]}`,
            };
      const api = made++ % ports.length;
      queues[api]!.push({ ...hit, api });
    }
  };

  // The deliveries recorded as sent, a few times a second; one last full look once the broadcast is finished.
  const produce = async () => {
    let since = new Date(0);
    try {
      for (;;) {
        const done = await options.finished();
        const rows = await db
          .selectFrom('deliveries')
          .select(['id', 'personId', 'variant', 'sentAt'])
          .where('accountId', '=', accountId)
          .where('sourceKind', '=', 'broadcast')
          .where('sourceId', '=', broadcastId)
          .where('status', '=', 'sent')
          .where('sentAt', '>=', done ? new Date(0) : since)
          .execute();
        for (const row of rows) {
          if (seen.has(row.id)) continue;
          addMessage({ id: row.id, personId: row.personId!, variant: row.variant });
          // Recording transactions commit in any order: the next look goes back 10 s before the newest seen.
          if (row.sentAt && row.sentAt.getTime() - 10_000 > since.getTime())
            since = new Date(row.sentAt.getTime() - 10_000);
        }
        notify();
        if (done) break;
        // A pause between two looks at the table, not a wait for work.
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      producing = false;
      notify();
    }
  };

  const request = async (api: number, agent: http.Agent) => {
    const queue = queues[api]!;
    for (;;) {
      const hit = queue[taken[api]!];
      if (!hit) {
        if (!producing) return;
        await woken;
        continue;
      }
      taken[api]!++;
      if (!firstAt) firstAt = performance.now();
      try {
        const { status } = await httpGet(ports[api]!, hit.url, agent);
        if (status === 200 || status === 302) {
          const second = Math.floor((performance.now() - firstAt) / 1000);
          perSecond[second] = (perSecond[second] ?? 0) + 1;
          answeredByApi[api]!++;
          answered.set(hit.key, (answered.get(hit.key) ?? 0) + 1);
        } else failures.push(`${status} ${hit.url}`);
      } catch (error) {
        failures.push(`${(error as Error).message} ${hit.url}`);
      }
      lastAt = performance.now();
    }
  };

  const agents = ports.map(() => new http.Agent({ keepAlive: true, maxSockets: inFlight }));
  return Promise.all([
    produce(),
    ...ports.flatMap((_, api) => Array.from({ length: inFlight }, () => request(api, agents[api]!))),
  ])
    .finally(() => {
      for (const agent of agents) agent.destroy();
    })
    .then(() => ({
      made,
      messages: seen.size,
      answeredByApi,
      answered,
      failures,
      seconds: Math.round((lastAt - firstAt) / 100) / 10,
      peakPerSecond: Math.max(0, ...Array.from(perSecond, (n) => n ?? 0)),
    }));
}

/** Stored counts against expected ones, key by key: all stored, stored short of expected (`missing`), beyond (`extra`). */
export interface Compared {
  stored: number;
  missing: number;
  extra: number;
}

/** Compare rows of `key` and count `n` (what a store kept) with what was expected of each key. */
export function compareCounts(rows: { key: string; n: number }[], expected: Map<string, number>): Compared {
  const stored = new Map<string, number>();
  for (const row of rows) stored.set(row.key, (stored.get(row.key) ?? 0) + row.n);
  let missing = 0;
  let extra = 0;
  for (const key of new Set([...stored.keys(), ...expected.keys()])) {
    const difference = (stored.get(key) ?? 0) - (expected.get(key) ?? 0);
    if (difference > 0) extra += difference;
    else missing -= difference;
  }
  return { stored: rows.reduce((total, row) => total + row.n, 0), missing, extra };
}

/** The broadcast's opens and clicks in PostgreSQL's events table, by `<person> <opened|clicked> <link>`. */
export async function storedHitRows(db: Database, accountId: number, broadcastId: number) {
  const { rows } = await sql<{ key: string; n: number }>`
    select person_id || ' ' || name || ' ' || coalesce(data->>'link', '') as key, count(*)::int as n from events
    where account_id = ${accountId} and type = 'email' and name in ('opened', 'clicked')
      and data->>'broadcastId' = ${String(broadcastId)}
    group by 1`.execute(db);
  return rows;
}
