import { sql } from 'kysely';
import { withAccount } from '../../apps/server/src/db/tenancy.ts';
import { defaultCategory } from '../../apps/server/src/features/categories/categories.service.ts';
import {
  enqueueDeliveries,
  sourceProgress,
} from '../../apps/server/src/features/deliveries/deliveries.service.ts';
import { prepareBroadcast } from './broadcast-100k.ts';
import { startKillHarness } from './kill-harness.ts';
import { round1 } from './lib.ts';

const people = Number(process.env.BROADCAST_PEOPLE ?? 100_000);
const kills = 5;

/**
 * `broadcast-kill`: the broadcast-100k send with its worker in a process of its own, killed with SIGKILL five
 * times at random moments while it is sending (each once the restarted worker has sent again) and started again. Figure: wrong messages, duplicates plus people missed.
 */
export async function broadcastKill(): Promise<{ figure: number; unit: string }> {
  const harness = await startKillHarness('3951', 'bench-kill-secret-bench-kill-secret-0123456789');
  const { sink, server } = harness;
  try {
    const { accountId, emailId, broadcastId } = await prepareBroadcast(server.services.db);
    const started = performance.now();
    await withAccount(server.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      return enqueueDeliveries(db, {
        accountId,
        kind: 'broadcast',
        sourceId: broadcastId,
        emailId,
        category: { id: Number(category.id), type: 'marketing' },
        audience: sql`true`,
      });
    });
    harness.startWorker();
    let before = 0;
    for (let i = 1; i <= kills; i++) {
      // Each kill lands mid-send: after a random pause once the restarted worker has sent again.
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 4000));
      for (;;) {
        if ((await sink.stats()).received > before + 500) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const { received } = await sink.stats();
      before = received;
      console.log(
        `  kill ${i} at ${round1((performance.now() - started) / 1000)} s (${received} received); restarting`,
      );
      await harness.restartWorker();
    }
    for (;;) {
      await new Promise((r) => setTimeout(r, 2000));
      const progress = await withAccount(server.services.db, accountId, (db) =>
        sourceProgress(db, accountId, 'broadcast', broadcastId),
      );
      const stats = await sink.stats();
      console.log(
        `  ${stats.received} received, ${progress.sent} recorded sent, ${progress.pending + progress.sending} left (${round1((performance.now() - started) / 1000)} s)`,
      );
      if (progress.pending + progress.sending === 0) break;
      if (performance.now() - started > 900_000) throw new Error('not done in 15 minutes');
    }
    await new Promise((r) => setTimeout(r, 1000));
    const stats = await sink.stats();
    const missing = people - stats.distinct;
    console.log(
      `  ${stats.received} received for ${stats.distinct} people: ${stats.duplicates} duplicates, ${missing} missing`,
    );
    return { figure: stats.duplicates + missing, unit: 'wrong' };
  } finally {
    await harness.stop();
  }
}
