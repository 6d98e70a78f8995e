// The closing line of a suite (`npm run test:security`, `npm run test:faults`): each part of the suite writes its
// figure to .figures/<suite>/<order>-<part>.txt (see writeFigure in the suites), and this prints them joined on
// one line in file-name order. `reset <suite>` clears the suite's figures before a run.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, suite] = process.argv.slice(2);
if (!suite || !/^[a-z-]+$/.test(suite) || (command !== 'reset' && command !== 'print')) {
  console.error('usage: node scripts/figures.mjs reset|print <suite>');
  process.exit(2);
}
const dir = path.join(process.env.HERALD_FIGURES_DIR ?? path.join(root, '.figures'), suite);
if (command === 'reset') {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
} else {
  const files = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((name) => name.endsWith('.txt'))
        .sort()
    : [];
  if (files.length === 0) {
    console.error(`${suite}: no figures were written`);
    process.exit(1);
  }
  console.log(files.map((name) => fs.readFileSync(path.join(dir, name), 'utf8').trim()).join('; '));
}
