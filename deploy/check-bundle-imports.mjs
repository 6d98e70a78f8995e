// Run while the image is built (Dockerfile): every package the built server imports must be found from
// apps/server/dist, where Node looks for it at run time. esbuild leaves packages out of the bundle and the image
// installs them itself, so a package missing there would otherwise show only when the container starts.
//
//   node deploy/check-bundle-imports.mjs apps/server/dist
//
// A static import (`from "x"`) that cannot be found fails; a dynamic one (`import("x")`) is only reported, as the
// code may load it for one setting only.
import fs from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';

const dir = path.resolve(process.argv[2] ?? 'apps/server/dist');
const builtins = new Set(builtinModules);
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isPackage = (specifier) =>
  !specifier.startsWith('.') &&
  !specifier.startsWith('/') &&
  !specifier.startsWith('node:') &&
  !builtins.has(packageOf(specifier));

const staticImports = new Set();
const dynamicImports = new Set();
for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.js'))) {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  for (const [, name] of text.matchAll(/\b(?:from|import)\s*"([^"\s]+)"/g))
    if (isPackage(name)) staticImports.add(packageOf(name));
  for (const [, name] of text.matchAll(/\bimport\(\s*"([^"\s]+)"\s*\)/g))
    if (isPackage(name)) dynamicImports.add(packageOf(name));
}

const lookup = createRequire(path.join(dir, 'main.js')).resolve.paths('x') ?? [];
const found = (name) => lookup.some((folder) => fs.existsSync(path.join(folder, name, 'package.json')));

const missing = [...staticImports].filter((name) => !found(name)).sort();
const optional = [...dynamicImports].filter((name) => !staticImports.has(name) && !found(name)).sort();
if (optional.length) console.log(`Loaded on demand and not installed: ${optional.join(', ')}`);
if (missing.length) {
  console.error(
    `${path.relative(process.cwd(), dir)} imports packages that are not installed: ${missing.join(', ')}`,
  );
  process.exit(1);
}
console.log(`${staticImports.size} packages imported by ${path.relative(process.cwd(), dir)}, all installed`);
