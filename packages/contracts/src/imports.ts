import { z } from 'zod';
import { personFieldTypes } from './people.ts';

export const importMessages = {
  noPeople: 'No people to import.',
  noMapping: "Can't import without mapped fields.",
  importError: 'Error while importing.',
  couldNotProcess: "We couldn't process the import.",
  uploadUrlFailed: "Couldn't get import file upload URL.",
  noEmailColumn: 'Map a column to Email: every person needs an email.',
  fileMissing: 'The uploaded file was not found. Upload it again.',
  importNotFound: 'Import not found.',
} as const;

/** Largest CSV accepted (the file streams; this bounds the disk it takes). */
export const maxImportBytes = 512 * 1024 * 1024;
export const existingPeopleStrategies = ['update', 'ignore'] as const;

/** One column of the file: where its values go — a field, a new field, the tags, or nowhere. */
export const ColumnMapping = z.strictObject({
  column: z.string().max(500),
  field: z.string().max(100).nullable(),
  newField: z
    .strictObject({ title: z.string().trim().min(1).max(200), type: z.enum(personFieldTypes) })
    .optional(),
});
export type ColumnMapping = z.infer<typeof ColumnMapping>;

export const CreateImportBody = z.strictObject({
  name: z.string().trim().max(200).optional(),
  peopleFileKey: z.string().min(1).max(500),
  numPeople: z.coerce.number().int().min(0).max(100_000_000).optional(),
  fieldMapping: z.array(ColumnMapping).max(1000).optional(),
  tags: z.array(z.string().max(200)).max(100).optional(),
  /** Double opt-in: the file's people confirmed already (docs/senders-and-consent.md); off by default. */
  alreadyConfirmed: z.boolean().optional(),
  existingPeopleStrategy: z
    .enum(existingPeopleStrategies, "Choose 'update' or 'ignore' for people who already exist.")
    .default('update'),
});

export const importStatuses = ['queued', 'parsing', 'importing', 'done', 'failed'] as const;
export const Import = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(importStatuses),
  existingPeopleStrategy: z.enum(existingPeopleStrategies),
  tags: z.array(z.string()),
  numPeople: z.number().int(),
  totalRows: z.number().int().nullable(),
  progress: z.number().min(0).max(1),
  counts: z.object({
    created: z.number().int(),
    updated: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    duplicates: z.number().int(),
  }),
  error: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type Import = z.infer<typeof Import>;
export const ImportList = z.object({ imports: z.array(Import) });
export const ImportCreated = z.object({ id: z.number().int() });
export const ImportUploadUrl = z.object({ url: z.string(), key: z.string() });
