import { operationKeys, stepTypeOf, type OperationKey, type StepType } from '@herald/contracts';
import { stepHandlers } from './registry.ts';

/** One native step as the catalogue lists it (the API adds display sizes, help and input schema). */
export type CatalogueItem = {
  operationKey: OperationKey;
  label: string;
  description: string;
  type: StepType;
  icon: string;
};

/** The human label of an operation ('Send email', 'Wait', 'Entered segment', …). */
export function stepLabel(key: OperationKey): string {
  return stepHandlers[key].label;
}

/** Every native operation, triggers first, then actions, then filters (the order of `operationKeys`). */
export const catalogue: readonly CatalogueItem[] = operationKeys.map((operationKey) => {
  const { label, description, icon } = stepHandlers[operationKey];
  return { operationKey, label, description, icon, type: stepTypeOf(operationKey) };
});
