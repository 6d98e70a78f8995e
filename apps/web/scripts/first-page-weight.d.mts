// Types of first-page-weight.mjs, for the bench's TypeScript (bench/workloads/web-weight.ts).
export interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  name?: string;
}
export type Manifest = Record<string, ManifestChunk>;
export interface FirstPage {
  path: string;
  modules: string[];
}
export interface WeighedPage {
  path: string;
  total: number;
  files: { file: string; bytes: number }[];
}

export const firstPageLimitBytes: number;
export const firstPages: FirstPage[];
export function chunkKeyOf(manifest: Manifest, module: string): string;
export function chunkClosure(manifest: Manifest, key: string, files?: Set<string>): Set<string>;
export function firstPageFiles(
  manifest: Manifest,
  indexHtml: string,
  pages?: FirstPage[],
): { entryFiles: Set<string>; pages: { path: string; files: Set<string> }[] };
export function firstPageWeight(
  distDir: string,
  pages?: FirstPage[],
): { entryFiles: Set<string>; pages: WeighedPage[]; heaviest: number };
export function kB(bytes: number): string;
export function pageLines(page: WeighedPage): string[];
