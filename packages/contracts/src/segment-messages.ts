/** Messages of the segments area (docs/segments.md), and the limits they quote. */
export const segmentMessages = {
  saved: '✅ Segment saved.',
  deleted: '✅ Segment deleted.',
  duplicateCondition: 'This condition already exists.',
  stillBuilding: 'Segment is still building 🏗. Please try again in a few minutes.',
  nameRequired: 'Segment needs a name.',
  idRequired: 'Segment needs an id.',
  notFound: 'Segment not found.',
  personNotFound: 'Person does not exist.',
  automatic: 'Automatic segments cannot be changed or deleted.',
  loadError: 'Error while loading your segments.',
  peopleError: 'Error while getting people in segment.',
  sortError: 'Error while sorting segment.',
  createError: 'Error while creating your segment.',
  saveError: 'Error while saving your segment.',
  deleteError: 'Error while deleting your segment.',
  previewError: 'Error while loading preview for segment.',
  unknownError: 'Unknown error. ',
  cycle: 'A segment cannot include itself, directly or through other segments.',
  tooDeep: (max: number) => `Conditions can be nested at most ${max} levels deep.`,
  tooMany: (max: number) => `A segment can have at most ${max} conditions.`,
  unknownField: (name: string) => `Unknown field: ${name}.`,
  operatorNotForType: (operator: string, type: string) =>
    `The operator "${operator}" does not apply to a ${type} field.`,
  valueRequired: (operator: string) => `The operator "${operator}" needs a value.`,
  valueNotOfType: (name: string, type: string) => `The value for ${name} must be a ${type}.`,
  unknownSegment: (id: number) => `Segment ${id} does not exist.`,
} as const;

/** Limits that keep a tree compilable to one query of sane size. */
export const segmentLimits = { maxDepth: 10, maxConditions: 100, maxNameLength: 200 } as const;
