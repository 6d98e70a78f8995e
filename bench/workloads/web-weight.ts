import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/web');
const distDir = path.join(webDir, 'dist');

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
  isDynamicEntry?: boolean;
}
type Manifest = Record<string, ManifestChunk>;

/**
 * The pages measured and the route modules each needs before it can paint. A module that is not a
 * chunk of its own (before the split) is inside the entry, which is counted anyway.
 */
const pages: { path: string; modules: string[] }[] = [
  { path: '/login', modules: ['src/features/auth/login-page.tsx'] },
  { path: '/dashboard', modules: ['src/app/shell/app-shell.tsx', 'src/features/areas/area-page.tsx'] },
];
/** Chunks that belong to the email editors, reported on their own. */
const editorPattern = /grapes|tiptap|codemirror|prosemirror|html-editor|rich-text-editor|drag-drop-editor/i;

const gzipBytes = (file: string) => gzipSync(fs.readFileSync(path.join(distDir, file))).length;
const kB = (bytes: number) => (bytes / 1000).toFixed(1);

/** Every file a chunk needs before it runs: itself, its CSS, and its static imports, recursively. */
function closure(manifest: Manifest, key: string, files: Set<string>): void {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const css of chunk.css ?? []) files.add(css);
  for (const imported of chunk.imports ?? []) closure(manifest, imported, files);
}

/**
 * web-weight: builds the web app and adds up the gzipped JS and CSS that /login and /dashboard load
 * before their first paint (the entry, its static imports, its CSS, and the route's own chunks).
 * Figure: the heavier of the two pages, in kB (1 kB = 1,000 bytes).
 */
export async function webWeight(): Promise<{ figure: number; unit: string }> {
  console.log('building apps/web (vite build)…');
  execFileSync('npm', ['run', 'build', '-w', 'apps/web'], {
    cwd: path.resolve(webDir, '../..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const manifest = JSON.parse(fs.readFileSync(path.join(distDir, '.vite/manifest.json'), 'utf8')) as Manifest;
  const entryKey = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  if (!entryKey) throw new Error('the build has no entry chunk');
  const entryFiles = new Set<string>();
  closure(manifest, entryKey, entryFiles);
  const cssOfIndex =
    fs.readFileSync(path.join(distDir, 'index.html'), 'utf8').match(/href="\/?(assets\/[^"]+\.css)"/g) ?? [];
  for (const link of cssOfIndex) entryFiles.add(link.replace(/^href="\/?/, '').replace(/"$/, ''));

  let heaviest = 0;
  for (const page of pages) {
    const files = new Set(entryFiles);
    for (const module of page.modules) if (manifest[module]) closure(manifest, module, files);
    const sizes = [...files]
      .map((file) => ({ file, bytes: gzipBytes(file) }))
      .sort((a, b) => b.bytes - a.bytes);
    const total = sizes.reduce((sum, item) => sum + item.bytes, 0);
    console.log(`\n${page.path}: ${kB(total)} kB gzipped in ${sizes.length} files`);
    for (const item of sizes) console.log(`  ${kB(item.bytes).padStart(7)} kB  ${item.file}`);
    heaviest = Math.max(heaviest, total);
  }

  const all = fs.readdirSync(path.join(distDir, 'assets')).filter((file) => /\.(js|css)$/.test(file));
  const editors = all.filter((file) => editorPattern.test(file));
  console.log('\nEditor chunks (loaded only when an email is opened in that editor):');
  for (const file of editors)
    console.log(`  ${kB(gzipBytes(`assets/${file}`)).padStart(7)} kB  assets/${file}`);
  const leaked = editors.filter((file) => [...entryFiles].some((entry) => entry.endsWith(file)));
  if (leaked.length > 0) console.log(`WARNING: editor code in the entry: ${leaked.join(', ')}`);
  return { figure: Number(kB(heaviest)), unit: 'kB' };
}
