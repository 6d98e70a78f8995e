import type { EmailStatsResponse } from '@herald/contracts';
import { rollUpEmailMetrics } from '../src/features/metrics/metrics.jobs.ts';
import type { Client, registerUser, TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the email metrics tests share: a server with a worker and an SMTP sink, and the calls that write email events,
 * roll them up and read the figures. A test file calls useMetricsContext() once: its own beforeAll builds the server
 * and its afterAll closes it; `ctx` and `smtp`, read live by the importers, name the current file's.
 */
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useMetricsContext(): void {
  // Invitations leave through the worker, which also runs the rollup poller.
  useSmtpContext({}, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

export type Owner = Awaited<ReturnType<typeof registerUser>>;
export const accountOf = (owner: Owner) => owner.account.accountId as number;

export interface EventSpec {
  person: number;
  name: string;
  data: Record<string, unknown>;
  /** Hours before now. */
  ago?: number;
}

/** Email events written as the pipeline and tracking write them: one multi-row insert. */
export async function record(accountId: number, events: EventSpec[]): Promise<void> {
  await ctx.services.db
    .insertInto('events')
    .values(
      events.map((e) => ({
        accountId,
        personId: e.person,
        type: 'email',
        name: e.name,
        source: 'email',
        data: JSON.stringify(e.data),
        createdAt: new Date(Date.now() - (e.ago ?? 0) * 3_600_000),
      })),
    )
    .execute();
}

export const stats = (client: Client, query: string) =>
  client.get<EmailStatsResponse>(`/v1/emails/stats?${query}`);
export const roll = () => rollUpEmailMetrics(ctx.services.db, { wait: true });
