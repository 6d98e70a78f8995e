import { decodeInputFields, flowMessages, operationConfigs, type InputFields } from '@herald/contracts';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { EventStore } from '../../db/event-store.ts';
import { withAccount } from '../../db/tenancy.ts';
import type { Services } from '../../services.ts';
import { existingSegmentIds } from '../broadcasts/broadcasts.queries.ts';
import { filterOfSegment } from '../segments/segment-people.service.ts';
import { addFlowWarning } from './flow-runs.queries.ts';
import { fireDates, fireTime, scheduledTriggers, type ScheduledTrigger } from './flow-triggers.queries.ts';

/**
 * The scheduled triggers, run every minute by the `flow-scheduled-triggers` job: a /time trigger enters its
 * audience once its moment has come (each person once), a date-field trigger the people whose date (shifted) is
 * today at its time in their zone, an anniversary trigger those whose anniversary it is. A trigger whose segment
 * was deleted enters nobody and leaves a warning on its flow.
 */
export async function runScheduledTriggers(services: Services): Promise<number> {
  let entered = 0;
  for (const trigger of await scheduledTriggers(services.db)) {
    try {
      entered += await withAccount(services.db, trigger.accountId, async (db) => {
        await sql`select set_config('statement_timeout', '0', true)`.execute(db);
        return fireTrigger(services.events, db, trigger);
      });
    } catch (error) {
      console.error(`[flows] scheduled trigger ${trigger.stepId}:`, error);
    }
  }
  return entered;
}

async function fireTrigger(events: EventStore, db: Database, trigger: ScheduledTrigger): Promise<number> {
  const config = decodeInputFields(trigger.inputFields as InputFields);
  switch (trigger.operationKey) {
    case '/time': {
      const parsed = operationConfigs['/time'].safeParse(config);
      if (!parsed.success) return 0;
      const at = new Date(parsed.data.at);
      if (at.getTime() > Date.now()) return 0;
      let audience: RawBuilder<SqlBool> = sql<SqlBool>`true`;
      const segmentId = parsed.data.segment?.id;
      if (segmentId !== undefined) {
        if (!(await existingSegmentIds(db, trigger.accountId, [segmentId])).has(segmentId)) {
          await addFlowWarning(db, trigger.accountId, trigger.flowId, flowMessages.segmentGone(segmentId));
          return 0;
        }
        audience = await filterOfSegment(events, db, trigger.accountId, segmentId);
      }
      return fireTime(db, trigger, at, audience);
    }
    case '/dateFieldTrigger': {
      const parsed = operationConfigs['/dateFieldTrigger'].safeParse(config);
      if (!parsed.success) return 0;
      return fireDates(db, trigger, parsed.data.field, parsed.data.time, parsed.data.offsetDays);
    }
    case '/annualTrigger': {
      const parsed = operationConfigs['/annualTrigger'].safeParse(config);
      if (!parsed.success) return 0;
      return fireDates(db, trigger, parsed.data.field, parsed.data.time, null);
    }
  }
}
