// The first page's weight (docs/web-app.md, "A lighter web app"): the gzipped JS and CSS /login and /dashboard need
// before they paint, read from the build's manifest (apps/web/dist/.vite/manifest.json). Shared by the bundle-size
// check of `npm test` (scripts/web-weight-check.mjs) and the bench (bench/workloads/web-weight.ts); no dependencies.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** Past this many gzipped bytes (1 kB = 1,000 bytes) on either page, `npm test` fails (issue 56). */
export const firstPageLimitBytes = 200_000;

/**
 * The pages measured and the route modules each needs before it can paint, besides the entry. A module that is not a
 * chunk of its own is inside the entry, which is counted anyway. /dashboard counts the signed-in shell, not the
 * dashboard page's own chunk (its chart library): the bench named a page module that no longer exists
 * (src/features/areas/area-page.tsx), so its figures never held it either; counting it is left to issue 56.
 */
export const firstPages = [
  { path: '/login', modules: ['src/features/auth/login-page.tsx'] },
  { path: '/dashboard', modules: ['src/app/shell/app-shell.tsx'] },
];

/** Every file a chunk needs before it runs: itself, its CSS, and its static imports, recursively. */
export function chunkClosure(manifest, key, files = new Set()) {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return files;
  files.add(chunk.file);
  for (const css of chunk.css ?? []) files.add(css);
  for (const imported of chunk.imports ?? []) chunkClosure(manifest, imported, files);
  return files;
}

/**
 * The manifest key of a module's chunk: the module's path, or, when a chunk loaded after it imports from it (so the
 * bundler made it a shared chunk), the dynamic entry named after the module (`_app-shell-8e4J.js` for
 * `src/app/shell/app-shell.tsx`). A module with neither is inside the entry.
 */
export function chunkKeyOf(manifest, module) {
  if (manifest[module]) return module;
  const name = module.replace(/^.*\//, '').replace(/\.[^.]+$/, '');
  return (
    Object.keys(manifest).find((key) => manifest[key].isDynamicEntry && manifest[key].name === name) ?? module
  );
}

/**
 * The files of each page: the entry's closure, the stylesheets index.html links, and each of the page's modules'
 * closures. Throws when the manifest has no entry.
 */
export function firstPageFiles(manifest, indexHtml, pages = firstPages) {
  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (!entryKey) throw new Error('the build has no entry chunk');
  const entryFiles = chunkClosure(manifest, entryKey);
  for (const link of indexHtml.match(/href="\/?(assets\/[^"]+\.css)"/g) ?? [])
    entryFiles.add(link.replace(/^href="\/?/, '').replace(/"$/, ''));
  return {
    entryFiles,
    pages: pages.map((page) => {
      const files = new Set(entryFiles);
      for (const module of page.modules) chunkClosure(manifest, chunkKeyOf(manifest, module), files);
      return { path: page.path, files };
    }),
  };
}

/** Each page's files with their gzipped sizes, heaviest first, and its total; `heaviest` is the larger total. */
export function firstPageWeight(distDir, pages = firstPages) {
  const manifest = JSON.parse(fs.readFileSync(path.join(distDir, '.vite/manifest.json'), 'utf8'));
  const indexHtml = fs.readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const listed = firstPageFiles(manifest, indexHtml, pages);
  const gzipped = new Map();
  const gzipBytes = (file) => {
    if (!gzipped.has(file)) gzipped.set(file, gzipSync(fs.readFileSync(path.join(distDir, file))).length);
    return gzipped.get(file);
  };
  const weighed = listed.pages.map((page) => {
    const files = [...page.files].map((file) => ({ file, bytes: gzipBytes(file) }));
    files.sort((a, b) => b.bytes - a.bytes);
    return { path: page.path, total: files.reduce((sum, item) => sum + item.bytes, 0), files };
  });
  return {
    entryFiles: listed.entryFiles,
    pages: weighed,
    heaviest: Math.max(0, ...weighed.map((page) => page.total)),
  };
}

/** Bytes as kB with one decimal (1 kB = 1,000 bytes), as the bench prints them. */
export const kB = (bytes) => (bytes / 1000).toFixed(1);

/** The lines web-weight and the check print for each page: its total, then every file, heaviest first. */
export function pageLines(page) {
  return [
    `${page.path}: ${kB(page.total)} kB gzipped in ${page.files.length} files`,
    ...page.files.map((item) => `  ${kB(item.bytes).padStart(7)} kB  ${item.file}`),
  ];
}
