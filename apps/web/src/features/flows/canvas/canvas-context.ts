import type { CatalogueEntry } from '@herald/contracts';
import { createContext, useContext } from 'react';
import type { StepNames } from '../step-display.tsx';
import type { EditorStep } from '../use-flow-editor.ts';

/** What every node and link of the canvas reads, passed once instead of copied into each node's data. */
export interface CanvasContextValue {
  catalogue: Map<string, CatalogueEntry>;
  names: StepNames;
  /** People at each step now, by server id. */
  counts: Record<string, number>;
  /** Steps preview: each node's settings summarised under its label (on by default). */
  isPreviewOn: boolean;
  isReadOnly: boolean;
  /** Send steps' email figures (skipped in the read-only shared view). */
  showFigures: boolean;
  openPeople: (step: EditorStep) => void;
  deleteLink: (key: string) => void;
}

export const CanvasContext = createContext<CanvasContextValue | null>(null);

export function useCanvas(): CanvasContextValue {
  const value = useContext(CanvasContext);
  if (!value) throw new Error('The flow canvas context is missing.');
  return value;
}
