import type { PersonField, Segment } from '@herald/contracts';

/** Person fields and segments as the API returns them, for the tests of the editors that offer them. */

export function personField(
  name: string,
  type: PersonField['type'],
  title: string,
  choices?: string[],
): PersonField {
  return {
    name,
    type,
    title,
    icon: null,
    tooltip: null,
    format: null,
    readOnly: false,
    canMapFrom: true,
    firstClassField: false,
    array: false,
    createdBy: 'user',
    enum: choices ?? null,
    enumNames: null,
    allowNewEnumValues: false,
  };
}

export function segment(id: number, name: string, autoType: Segment['autoType'] = null): Segment {
  return {
    id,
    name,
    color: null,
    autoSegment: autoType !== null,
    autoType,
    conditions: [],
    memberCount: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
  };
}
