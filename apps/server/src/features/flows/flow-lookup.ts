import { flowMessages } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { notFound } from '../../http/errors.ts';
import { findFlow, lockFlow, type FlowRow } from './flows.queries.ts';

// Below flows.service, flow-versions.service and flows.share, which all look flows up (no circle between them).

export type FlowReader = { db: Database; accountId: number; readOnly: boolean };

export async function flowOrThrow(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<FlowRow> {
  const row = lock ? await lockFlow(db, accountId, id) : await findFlow(db, accountId, id);
  if (!row) throw notFound(flowMessages.notFound);
  return row;
}
