import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { firstPageWeight, kB, pageLines } from '../../apps/web/scripts/first-page-weight.mjs';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/web');
const distDir = path.join(webDir, 'dist');

/** Chunks that belong to the email editors, reported on their own. */
const editorPattern = /grapes|tiptap|codemirror|prosemirror|html-editor|rich-text-editor|drag-drop-editor/i;

const gzipBytes = (file: string) => gzipSync(fs.readFileSync(path.join(distDir, file))).length;

/**
 * web-weight: builds the web app and adds up the gzipped JS and CSS that /login and /dashboard load
 * before their first paint (the entry, its static imports, its CSS, and the route's own chunks), the
 * same count as the bundle-size check of `npm test` (apps/web/scripts/first-page-weight.mjs).
 * Figure: the heavier of the two pages, in kB (1 kB = 1,000 bytes).
 */
export async function webWeight(): Promise<{ figure: number; unit: string }> {
  console.log('building apps/web (vite build)…');
  execFileSync('npm', ['run', 'build', '-w', 'apps/web'], {
    cwd: path.resolve(webDir, '../..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const weight = firstPageWeight(distDir);
  for (const page of weight.pages) console.log(`\n${pageLines(page).join('\n')}`);

  const all = fs.readdirSync(path.join(distDir, 'assets')).filter((file) => /\.(js|css)$/.test(file));
  const editors = all.filter((file) => editorPattern.test(file));
  console.log('\nEditor chunks (loaded only when an email is opened in that editor):');
  for (const file of editors)
    console.log(`  ${kB(gzipBytes(`assets/${file}`)).padStart(7)} kB  assets/${file}`);
  const leaked = editors.filter((file) => [...weight.entryFiles].some((entry) => entry.endsWith(file)));
  if (leaked.length > 0) console.log(`WARNING: editor code in the entry: ${leaked.join(', ')}`);
  return { figure: Number(kB(weight.heaviest)), unit: 'kB' };
}
