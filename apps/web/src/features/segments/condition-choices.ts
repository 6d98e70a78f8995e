import type { PersonField, Segment } from '@herald/contracts';

/** What a condition editor offers to choose from: the account's fields, tags, event names and other segments. */
export interface ConditionChoices {
  fields: PersonField[];
  tags: string[];
  eventNames: string[];
  /** Segments a condition may refer to (not the one being edited). */
  segments: Pick<Segment, 'id' | 'name'>[];
}
