// The build step of `npm start`: builds the web app and the server only when their inputs changed since the build
// that left their dist/ (docs/operations.md, "Starting on an unchanged checkout"). Each dist/ keeps a hash of the
// files it was built from in `.inputs-hash`; a build that fails leaves no hash, so the next start builds again.
// `npm run build` still builds both every time. `node scripts/build-if-changed.mjs web` looks at the web app alone (the
// bundle-size check of `npm test`, scripts/web-weight-check.mjs).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const skipped = new Set(['node_modules', 'dist', 'test', 'tests', 'coverage']);

/** Every file under `entry` (a file or a folder), but for dependencies, outputs and tests. */
function filesUnder(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [entry];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .filter((item) => !skipped.has(item.name) && !item.name.startsWith('.'))
    .flatMap((item) => filesUnder(path.join(entry, item.name)));
}

/** What both builds read: the packages they bundle, the lockfile and the shared compiler options. */
const shared = [
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  ...fs
    .readdirSync(path.join(root, 'packages'))
    .flatMap((name) => [`packages/${name}/package.json`, `packages/${name}/src`]),
];

const builds = [
  {
    name: 'the web app',
    workspace: 'apps/web',
    output: 'apps/web/dist',
    entry: 'index.html',
    inputs: [...shared, 'apps/web'],
  },
  {
    name: 'the server',
    workspace: 'apps/server',
    output: 'apps/server/dist',
    entry: 'main.js',
    inputs: [...shared, 'apps/server/package.json', 'apps/server/src', 'apps/server/scripts'],
  },
];

function inputsHash(inputs) {
  const hash = crypto.createHash('sha256');
  for (const file of [...new Set(inputs.flatMap(filesUnder))].sort()) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const only = process.argv[2] === 'web' ? ['apps/web'] : null;

for (const build of builds.filter((item) => !only || only.includes(item.workspace))) {
  const stamp = path.join(root, build.output, '.inputs-hash');
  const hash = inputsHash(build.inputs);
  const built =
    fs.existsSync(path.join(root, build.output, build.entry)) &&
    fs.existsSync(stamp) &&
    fs.readFileSync(stamp, 'utf8').trim() === hash;
  if (built) {
    console.log(`${build.name}: unchanged since its last build, not built again`);
    continue;
  }
  fs.rmSync(stamp, { force: true });
  const result = spawnSync('npm', ['run', 'build', '-w', build.workspace], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  fs.writeFileSync(stamp, `${hash}\n`);
}
