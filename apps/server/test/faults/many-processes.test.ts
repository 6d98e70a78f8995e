import { sql } from 'kysely';
import { storedHitRows } from './hit-load.ts';
import { describeManyProcesses } from './many-processes-scenario.ts';

/**
 * Herald as several processes on one PostgreSQL, events on PostgreSQL (the default store): two API processes and two
 * workers, a broadcast, a flow with a wait, tracking hits and one worker killed mid-send (many-processes-scenario.ts).
 */
describeManyProcesses({
  title: 'faults: two API processes and two workers on one database',
  dataDirs: 'many',
  apiPorts: [3821, 3822],
  apiMetricsPorts: [3823, 3824],
  workerMetricsPorts: [3825, 3826],
  store: {
    env: () => ({}),
    hits: ({ db, broadcast }) => storedHitRows(db, broadcast.accountId, broadcast.broadcastId),
    async sentEvents(db, accountId, field, id) {
      const { rows } = await sql<{ key: string; n: number }>`
        select coalesce(person_id::text, '') || ' ' || coalesce(data->>'messageId', '') as key, count(*)::int as n
        from events
        where account_id = ${accountId} and type = 'email' and name = 'sent' and data->>${field} = ${String(id)}
        group by 1`.execute(db);
      return rows;
    },
  },
  figure: { order: 60, part: 'many-processes', label: '2 API + 2 workers' },
  ciShare: 0.25,
});
