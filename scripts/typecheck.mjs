// `npm run typecheck`: `tsc -p` of every project of the repository, two at a time (each takes one core for most of
// its run), each project's output printed whole once it ends. Fails when any project fails.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The largest first, so the two slots end close together.
const projects = [
  'apps/server',
  'apps/web',
  'e2e',
  'bench',
  'packages/email',
  'packages/flow-engine',
  'packages/segments',
  'packages/contracts',
];
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const slots = Math.max(1, Math.min(2, os.availableParallelism()));

function check(project) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [tsc, '-p', project], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `tsc -p ${project}: ${code === 0 ? 'ok' : `failed (${code})`} in ${seconds} s\n${output}`,
      );
      resolve(code === 0);
    });
  });
}

const queue = [...projects];
const results = await Promise.all(
  Array.from({ length: slots }, async () => {
    let ok = true;
    for (let project = queue.shift(); project; project = queue.shift()) ok = (await check(project)) && ok;
    return ok;
  }),
);
if (results.includes(false)) process.exit(1);
