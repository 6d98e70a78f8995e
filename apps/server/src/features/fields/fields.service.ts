import {
  cleanFieldName,
  firstClassFieldNames,
  firstClassFields,
  peopleMessages,
  readOnlyFieldNames,
  type CreateFieldsBody,
  type PersonField,
  type UpdateFieldBody,
} from '@herald/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { holdSegmentRefreshesUntilCommit } from '../../db/refresh-hold.ts';
import { findCustomField, listCustomFields, type CustomFieldRow } from './fields.queries.ts';

const builtIn: PersonField[] = firstClassFields.map((f) => ({
  name: f.name,
  type: f.type,
  title: f.title,
  icon: null,
  tooltip: null,
  format: null,
  readOnly: (readOnlyFieldNames as readonly string[]).includes(f.name),
  // What an import can fill: the writable first-class fields and the tags.
  canMapFrom: ['email', 'firstName', 'lastName', 'phone', 'company', 'website', 'userId', 'tags'].includes(
    f.name,
  ),
  firstClassField: true,
  array: false,
  createdBy: 'system',
  enum: null,
  enumNames: null,
  allowNewEnumValues: false,
}));

function toField(row: CustomFieldRow): PersonField {
  return {
    name: row.name,
    type: row.type as PersonField['type'],
    title: row.title,
    icon: row.icon,
    tooltip: row.tooltip,
    format: row.format,
    readOnly: row.readOnly,
    canMapFrom: row.canMapFrom,
    firstClassField: false,
    array: row.isArray,
    createdBy: row.createdBy,
    enum: row.enumValues as string[] | null,
    enumNames: row.enumNames as string[] | null,
    allowNewEnumValues: row.allowNewEnumValues,
  };
}

export async function listFields(db: Database, session: Session) {
  return { items: [...builtIn, ...(await listCustomFields(db, session.accountId)).map(toField)] };
}

/** POST /v1/fields: create fields (all or none); names are cleaned and must be new. */
export async function createFields(db: Database, session: Session, body: z.infer<typeof CreateFieldsBody>) {
  const names = new Set<string>();
  const rows = body.items.map((item) => {
    const name = cleanFieldName(item.name);
    if (!name) throw badRequest(peopleMessages.invalidFieldName);
    if (
      firstClassFieldNames.some((n) => n.toLowerCase() === name.toLowerCase()) ||
      names.has(name.toLowerCase())
    ) {
      throw conflict(peopleMessages.fieldExists(name));
    }
    names.add(name.toLowerCase());
    return {
      accountId: session.accountId,
      name,
      title: item.title || item.name.trim() || name,
      type: item.type,
      icon: item.icon ?? null,
      tooltip: item.tooltip ?? null,
      format: item.format ?? null,
      isArray: item.array ?? false,
      enumValues: item.enum ? JSON.stringify(item.enum) : null,
      enumNames: item.enumNames ? JSON.stringify(item.enumNames) : null,
      allowNewEnumValues: item.allowNewEnumValues ?? false,
    };
  });
  const existing = await db
    .selectFrom('personFields')
    .select('name')
    .where('accountId', '=', session.accountId)
    .where(sql<string>`lower(name)`, 'in', [...names])
    .executeTakeFirst();
  if (existing) throw conflict(peopleMessages.fieldExists(existing.name));
  const created = await db.insertInto('personFields').values(rows).returningAll().execute();
  return { items: created.map(toField) };
}

async function editableField(db: Database, session: Session, name: string) {
  if (firstClassFieldNames.includes(name)) throw badRequest(peopleMessages.fieldNotEditable);
  const row = await findCustomField(db, session.accountId, name);
  if (!row) throw notFound(peopleMessages.fieldNotFound);
  if (row.createdBy === 'system') throw badRequest(peopleMessages.fieldNotEditable);
  return row;
}

/** PATCH /v1/fields/{name}: title, help and enum settings; the name and type stay. */
export async function updateField(
  db: Database,
  session: Session,
  name: string,
  body: z.infer<typeof UpdateFieldBody>,
) {
  await editableField(db, session, name);
  const changes = {
    ...(body.title ? { title: body.title } : {}),
    ...(body.icon !== undefined ? { icon: body.icon || null } : {}),
    ...(body.tooltip !== undefined ? { tooltip: body.tooltip || null } : {}),
    ...(body.format !== undefined ? { format: body.format || null } : {}),
    ...(body.array !== undefined ? { isArray: body.array } : {}),
    ...(body.enum !== undefined ? { enumValues: JSON.stringify(body.enum) } : {}),
    ...(body.enumNames !== undefined ? { enumNames: JSON.stringify(body.enumNames) } : {}),
    ...(body.allowNewEnumValues !== undefined ? { allowNewEnumValues: body.allowNewEnumValues } : {}),
  };
  if (Object.keys(changes).length) {
    await db
      .updateTable('personFields')
      .set(changes)
      .where('accountId', '=', session.accountId)
      .where('name', '=', name)
      .execute();
  }
  return { item: toField((await findCustomField(db, session.accountId, name))!) };
}

/** How long a field's delete waits for the account's segment refreshes under way. */
export const fieldDeleteWaitMs = 5_000;
/** The 409 of a field's delete when the account's segment refreshes stay held past `fieldDeleteWaitMs`. */
export const fieldDeleteBusy =
  "We couldn't delete this field. Segments are being brought up to date; try again in a minute.";

/** DELETE /v1/fields/{name}: the definition and every person's value of it. */
export async function deleteField(db: Database, session: Session, name: string) {
  await editableField(db, session, name);
  // Refreshes running now finish with the field; later ones start without it (segments reading it keep their members).
  // Refreshes that do not finish within a few seconds (an import under way) leave the field as it is: 409.
  if (!(await holdSegmentRefreshesUntilCommit(db, session.accountId, fieldDeleteWaitMs)))
    throw conflict(fieldDeleteBusy);
  await db
    .deleteFrom('personFields')
    .where('accountId', '=', session.accountId)
    .where('name', '=', name)
    .execute();
  await db
    .updateTable('people')
    .set({ fields: sql`fields - ${name}::text` })
    .where('accountId', '=', session.accountId)
    .where(sql<boolean>`fields ? ${name}::text`)
    .execute();
}
