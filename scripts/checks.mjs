// The static checks of `npm test`: the type check of every project, lint, the format check, the layer rules and the
// first page's weight (scripts/web-weight-check.mjs), run
// two at a time (each is one process on one core for most of its run; one after another they left a core idle), the
// longest first so the two slots end close together. Each check's output is printed whole once it ends; the run fails
// when any check fails. `node scripts/checks.mjs typecheck` runs the type checks alone (`npm run typecheck`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file);

/**
 * `tsc -p` of each project, largest first. The server's check takes in the packages it runs (their sources are part of
 * its program anyway), and the benches' takes in the journeys' (both import the server's sources): eight programs
 * took 143 s of one core, these four take 88 s (2026-12-06). The contracts keep a check of their own, without Node's
 * types, since the web app shares them.
 */
const typeChecks = [
  ['the server and its packages', 'tsconfig.check-server.json'],
  ['the web app', 'apps/web'],
  ['the benches and the journeys', 'tsconfig.check-tools.json'],
  ['the contracts', 'packages/contracts'],
].map(([what, project]) => ({
  name: `tsc -p ${project} (${what})`,
  args: [bin('typescript', 'bin/tsc'), '-p', project],
}));

/** The other checks: their npm scripts' own commands (package.json), so each is written once. */
const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
const otherChecks = ['format:check', 'lint', 'lint:deps', 'check:web-weight'].map((script) => ({
  name: `${script} (${scripts[script]})`,
  shell: scripts[script],
}));

// The two largest type checks first, then the other checks (about 25, 17 and 10 s, and the first page's weight: a
// second when the web app is built, a build when it is not), then the small type checks.
const checks =
  process.argv[2] === 'typecheck'
    ? typeChecks
    : [...typeChecks.slice(0, 2), ...otherChecks, ...typeChecks.slice(2)];
const slots = Math.max(1, Math.min(2, os.availableParallelism()));

function run(check) {
  return new Promise((resolve) => {
    const started = Date.now();
    const stdio = ['ignore', 'pipe', 'pipe'];
    const child = check.shell
      ? spawn(check.shell, {
          cwd: root,
          stdio,
          shell: true,
          env: {
            ...process.env,
            PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
          },
        })
      : spawn(process.execPath, check.args, { cwd: root, stdio });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `${check.name}: ${code === 0 ? 'ok' : `failed (${code})`} in ${seconds} s\n${output}`,
      );
      resolve(code === 0);
    });
  });
}

const queue = [...checks];
const results = await Promise.all(
  Array.from({ length: slots }, async () => {
    let ok = true;
    for (let check = queue.shift(); check; check = queue.shift()) ok = (await run(check)) && ok;
    return ok;
  }),
);
if (results.includes(false)) process.exit(1);
