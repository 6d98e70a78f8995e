import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { sendRows, type Outcomes } from '../src/features/deliveries/batch-send.ts';
import { claimBatch, leaseSeconds } from '../src/features/deliveries/deliveries.queries.ts';
import { HeldLeases } from '../src/features/deliveries/held-leases.ts';
import { fenceMarginMs, fenceOpen, newFence, withdrawFence } from '../src/features/deliveries/lease-fence.ts';
import { prepareEmail } from '../src/features/deliveries/prepared-content.ts';
import { enqueueBroadcast, sendingAccount } from './delivery-setup.ts';
import { startDnsServer } from './dns-server.ts';
import { createTestContext, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  dns = await startDnsServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '300' });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
  await dns.close();
});

const leaseMs = leaseSeconds * 1000;

describe('the lease fence between a claimed batch and its sends', () => {
  it('opens until the margin before the lease ends, moves with renewals, and stays shut once withdrawn', () => {
    const held = new HeldLeases(leaseMs, leaseMs / 3);
    const { fence } = newFence(0, leaseMs);
    held.hold(
      [
        { id: 1, attempts: 1 },
        { id: 2, attempts: 1 },
      ],
      0,
      fence,
    );
    expect(fenceOpen(fence, leaseMs - fenceMarginMs - 1)).toBe(true);
    expect(fenceOpen(fence, leaseMs - fenceMarginMs)).toBe(false);
    // Both rows renewed at 10 s: the fence moves to 40 s.
    held.renewed([1, 2], 10_000, [1, 2]);
    expect(fenceOpen(fence, 10_000 + leaseMs - fenceMarginMs - 1)).toBe(true);
    // Row 2 claimed again by another worker: the whole batch stops starting messages, and a later renewal of row 1
    // does not open it again.
    held.renewed([1], 20_000, [1, 2]);
    expect(fenceOpen(fence, 20_001)).toBe(false);
    held.renewed([1], 30_000, [1]);
    expect(fenceOpen(fence, 30_001)).toBe(false);
  });

  it('sends a batch whose fence is open, and starts no message of one whose fence has passed: its rows stay leased and are sent once by the next claim', async () => {
    const { accountId, email, people } = await sendingAccount(ctx, dns, 4);
    const db = ctx.services.db;
    expect(await enqueueBroadcast(ctx, accountId, 11, email.id)).toEqual({ queued: 4, excluded: 0 });
    const account = { name: 'Fence test', mailingAddress: null, site: null };
    const prepared = await withAccount(db, accountId, (scoped) =>
      prepareEmail(
        ctx.services,
        scoped,
        { accountId, kind: 'broadcast', sourceId: 11, emailId: email.id, variant: 0 },
        account,
        false,
      ),
    );
    const outcomesOf = () =>
      ({ failures: [], skipped: [], sent: 0, withdrawn: [], opening: null }) satisfies Outcomes;

    // Two rows claimed, their fence withdrawn before the thread takes them (another worker claimed them again).
    const late = await withAccount(db, accountId, (scoped) =>
      claimBatch(scoped, accountId, 'broadcast', 11, 2),
    );
    const shut = newFence(Date.now(), leaseMs);
    withdrawFence(shut.fence);
    const lateOutcomes = outcomesOf();
    await sendRows(ctx.services, prepared, late, lateOutcomes, shut.buffer);
    expect(lateOutcomes).toMatchObject({ sent: 0, failures: [], skipped: [] });
    expect(lateOutcomes.withdrawn.sort()).toEqual(late.map((r) => r.id).sort());

    // A fence about to pass (less than the margin left) withdraws too.
    const rest = await withAccount(db, accountId, (scoped) =>
      claimBatch(scoped, accountId, 'broadcast', 11, 2),
    );
    const closing = newFence(Date.now() - leaseMs + fenceMarginMs / 2, leaseMs);
    const closingOutcomes = outcomesOf();
    await sendRows(ctx.services, prepared, rest, closingOutcomes, closing.buffer);
    expect(closingOutcomes.withdrawn).toHaveLength(2);
    expect(
      smtp.received.filter((m) => people.some((p) => JSON.stringify(m.to).includes(p.email))),
    ).toHaveLength(0);

    // Nothing was recorded: the four rows are still leased to the claims that withdrew them. Once the leases end,
    // the next claim takes all four (attempts 2) and, with an open fence, sends each once.
    const rows = await db
      .selectFrom('deliveries')
      .select(['status', 'attempts'])
      .where('accountId', '=', accountId)
      .execute();
    expect(rows.map((r) => `${r.status}/${r.attempts}`).sort()).toEqual(Array(4).fill('sending/1'));
    await db
      .updateTable('deliveries')
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where('accountId', '=', accountId)
      .execute();
    const again = await withAccount(db, accountId, (scoped) =>
      claimBatch(scoped, accountId, 'broadcast', 11, 10),
    );
    expect(again.map((r) => r.attempts)).toEqual([2, 2, 2, 2]);
    const open = newFence(Date.now(), leaseMs);
    const sentOutcomes = outcomesOf();
    await sendRows(ctx.services, prepared, again, sentOutcomes, open.buffer);
    expect(sentOutcomes).toMatchObject({ sent: 4, withdrawn: [], failures: [] });
    for (const person of people) {
      await smtp.waitFor(person.email);
      expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(person.email))).toHaveLength(1);
    }
  });
});
