import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chunkClosure, firstPageFiles, firstPageWeight, type Manifest } from './first-page-weight.mjs';

// A build's manifest in small: the entry imports a shared chunk, the login page imports the same one and a chunk of
// its own, and the editor is loaded on demand only (a dynamic import, never counted).
const manifest: Manifest = {
  'index.html': {
    file: 'assets/index.js',
    isEntry: true,
    css: ['assets/index.css'],
    imports: ['_shared.js'],
    dynamicImports: ['src/login.tsx', 'src/editor.tsx'],
  },
  '_shared.js': { file: 'assets/shared.js', css: ['assets/shared.css'], imports: ['index.html'] },
  'src/login.tsx': {
    file: 'assets/login.js',
    isDynamicEntry: true,
    imports: ['index.html', '_shared.js', '_input.js'],
  },
  '_input.js': { file: 'assets/input.js', css: ['assets/input.css'] },
  'src/editor.tsx': { file: 'assets/editor.js', isDynamicEntry: true, imports: ['_input.js'] },
  // A page module a later chunk imports from: the bundler keys it as a shared chunk named after the module.
  '_shell-x1.js': { file: 'assets/shell-x1.js', name: 'shell', isDynamicEntry: true, imports: ['_input.js'] },
  'src/popups.tsx': { file: 'assets/popups.js', isDynamicEntry: true, imports: ['_shell-x1.js'] },
};
const pages = [
  { path: '/login', modules: ['src/login.tsx'] },
  { path: '/gone', modules: ['src/not-a-chunk.tsx'] },
  { path: '/shell', modules: ['src/app/shell.tsx'] },
];
const indexHtml =
  '<link rel="stylesheet" crossorigin href="/assets/index.css"><link href="/assets/base.css">';

describe('the first page weight', () => {
  it('follows static imports and their CSS, once each, and never dynamic imports', () => {
    expect([...chunkClosure(manifest, 'index.html')].sort()).toEqual([
      'assets/index.css',
      'assets/index.js',
      'assets/shared.css',
      'assets/shared.js',
    ]);
  });

  it("adds index.html's stylesheets to the entry, and each page's own chunks; a module in the entry adds none", () => {
    const listed = firstPageFiles(manifest, indexHtml, pages);
    expect(listed.entryFiles.has('assets/base.css')).toBe(true);
    expect([...listed.pages[0]!.files].sort()).toEqual([
      'assets/base.css',
      'assets/index.css',
      'assets/index.js',
      'assets/input.css',
      'assets/input.js',
      'assets/login.js',
      'assets/shared.css',
      'assets/shared.js',
    ]);
    expect(listed.pages[1]!.files).toEqual(listed.entryFiles);
    // Found by its name when keyed as a shared chunk; what it loads later (the popups) is not counted.
    expect([...listed.pages[2]!.files].filter((f) => !listed.entryFiles.has(f)).sort()).toEqual([
      'assets/input.css',
      'assets/input.js',
      'assets/shell-x1.js',
    ]);
  });

  it('fails on a manifest without an entry', () => {
    expect(() => firstPageFiles({ 'src/a.tsx': { file: 'assets/a.js' } }, '')).toThrow('no entry chunk');
  });

  it('weighs each file gzipped, heaviest first, and names the heavier page', () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-weight-'));
    try {
      fs.mkdirSync(path.join(dist, '.vite'));
      fs.mkdirSync(path.join(dist, 'assets'));
      fs.writeFileSync(path.join(dist, '.vite/manifest.json'), JSON.stringify(manifest));
      fs.writeFileSync(path.join(dist, 'index.html'), indexHtml);
      const contents = (file: string) => `/* ${file} */ ${'x'.repeat(file.includes('login') ? 5000 : 10)}`;
      for (const file of [
        'index.js',
        'index.css',
        'base.css',
        'shared.js',
        'shared.css',
        'login.js',
        'input.js',
        'input.css',
        'shell-x1.js',
      ])
        fs.writeFileSync(path.join(dist, 'assets', file), contents(file));
      const weight = firstPageWeight(dist, pages);
      const login = weight.pages[0]!;
      const sizeOf = (file: string) => gzipSync(contents(path.basename(file))).length;
      expect(login.files.map((item) => item.bytes)).toEqual(login.files.map((item) => sizeOf(item.file)));
      expect(login.files[0]!.file).toBe('assets/login.js');
      expect(login.total).toBe(login.files.reduce((sum, item) => sum + item.bytes, 0));
      expect(weight.heaviest).toBe(login.total);
      expect(weight.pages[1]!.total).toBeLessThan(login.total);
    } finally {
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});
