// The bundle-size check of `npm test` (issue 56; docs/web-app.md, "A lighter web app"): builds the web app when
// apps/web/dist is missing or older than its sources (the build step of `npm start`, scripts/build-if-changed.mjs),
// then adds up the gzipped JS and CSS /login and /dashboard need before they paint, as `npm run bench -- web-weight`
// does, and fails past 200 kB on either page, naming the biggest files.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  firstPageLimitBytes,
  firstPageWeight,
  kB,
  pageLines,
} from '../apps/web/scripts/first-page-weight.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const build = spawnSync(process.execPath, [path.join(root, 'scripts/build-if-changed.mjs'), 'web'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

const weight = firstPageWeight(path.join(root, 'apps/web/dist'));
const over = weight.pages.filter((page) => page.total > firstPageLimitBytes);
for (const page of over) console.log(pageLines(page).slice(0, 11).join('\n'));
const totals = weight.pages.map((page) => `${page.path} ${kB(page.total)} kB`).join(', ');
if (over.length > 0) {
  const biggest = over[0].files.slice(0, 3).map((item) => `${item.file} (${kB(item.bytes)} kB)`);
  console.error(
    `web weight: ${totals} gzipped, over the first page's ${kB(firstPageLimitBytes)} kB limit. ` +
      `Biggest files: ${biggest.join(', ')}. Move what the first page does not need out of the entry ` +
      `(docs/web-app.md, "A lighter web app", says how to see what is in it).`,
  );
  process.exit(1);
}
console.log(`web weight: ${totals} gzipped (limit ${kB(firstPageLimitBytes)} kB)`);
