import { baseUrl, visitorAddress } from '../support/browser.ts';
import { corpus, fitting, type Payload } from './payloads.ts';

export interface Answer {
  status: number;
  body: any;
}

/**
 * The seeding account's API client: its session cookie, and a record of what each kind of field stored, so the
 * report says how far the corpus reached and a field that refuses everything does not pass unnoticed.
 */
export class Seeder {
  /** Payloads stored, by kind of field (`person.firstName`, `tag`, `flow.step.slack.text`...). */
  readonly stored = new Map<string, Set<number>>();
  /** Payloads a field refused (400/422), by kind of field: a refusal is fine, it just never reaches a page. */
  readonly refused = new Map<string, number>();
  /** The last refusal's answer, by kind of field. */
  readonly refusedWhy = new Map<string, string>();

  constructor(
    readonly cookie: string,
    readonly accountId: number,
  ) {}

  async call(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
    withSession = true,
  ): Promise<Answer> {
    const res = await fetch(`${baseUrl()}${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        origin: baseUrl(),
        'x-forwarded-for': visitorAddress(),
        ...(withSession ? { cookie: this.cookie } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed };
  }

  /** A call that must succeed; a 5xx or any refusal stops the seeding with the answer. */
  async must(
    what: string,
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
    withSession = true,
  ): Promise<any> {
    const answer = await this.call(method, url, body, headers, withSession);
    if (answer.status >= 300)
      throw new Error(
        `seeding ${what}: ${method} ${url} answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 400)}`,
      );
    return answer.body;
  }

  /**
   * A write of payloads into a kind of field: stored when it succeeds, counted as refused on a 4xx. A 5xx is a
   * product bug (input a user can type must never crash the server) and stops the run.
   */
  async write(
    kind: string,
    payloads: Payload[],
    method: string,
    url: string,
    body: unknown,
    headers?: Record<string, string>,
    withSession = true,
  ): Promise<any> {
    const answer = await this.call(method, url, body, headers, withSession);
    if (answer.status >= 500)
      throw new Error(
        `${kind}: ${method} ${url} answered ${answer.status} for payloads ${payloads.map((p) => p.id).join(',')}: ${JSON.stringify(answer.body).slice(0, 400)}`,
      );
    if (answer.status >= 300) {
      this.refused.set(kind, (this.refused.get(kind) ?? 0) + payloads.length);
      this.refusedWhy.set(kind, `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      return null;
    }
    this.note(kind, payloads);
    return answer.body;
  }

  note(kind: string, payloads: Payload[]): void {
    const set = this.stored.get(kind) ?? new Set<number>();
    for (const payload of payloads) set.add(payload.id);
    this.stored.set(kind, set);
  }

  /** One line per kind of field: how many payloads it stored and refused. */
  summary(): string {
    const kinds = [...new Set([...this.stored.keys(), ...this.refused.keys()])].sort();
    return kinds
      .map(
        (kind) =>
          `  ${kind}: ${this.stored.get(kind)?.size ?? 0} stored${this.refused.get(kind) ? `, ${this.refused.get(kind)} refused (last: ${this.refusedWhy.get(kind)})` : ''}`,
      )
      .join('\n');
  }
}

/** Runs `work` over items with at most `width` at a time. */
export async function inParallel<T>(
  items: T[],
  width: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  });
  await Promise.all(lanes);
}

/** The corpus cut into `count` slices of nearly equal size, in order (every payload in exactly one slice). */
export function slices(count: number, payloads: Payload[] = corpus): Payload[][] {
  const out: Payload[][] = Array.from({ length: count }, () => []);
  payloads.forEach((payload, index) => out[index % count]!.push(payload));
  return out;
}

/**
 * For a field of at most `max` characters: the payloads that fit, each once. Every payload that fits reaches this
 * kind of field; the longer ones reach the longer fields.
 */
export function allFitting(max: number): Payload[] {
  return fitting(max);
}

/** A unique suffix for addresses and names that must not collide. */
export const runTag = Math.random().toString(36).slice(2, 8);
