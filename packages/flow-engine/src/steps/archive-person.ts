import { next, type StepHandler } from '../step-handler.ts';

/** Archive the person; the run goes on (later steps may still tag or notify). */
export const archivePersonHandler: StepHandler<'/archive-person'> = {
  label: 'Archive person',
  description: 'Archives the person.',
  icon: 'IconArchive',
  execute: () => next([{ kind: 'archivePerson' }]),
};
