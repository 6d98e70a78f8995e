import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');

/**
 * Records one part of a suite's closing line (`npm run test:security`, `npm run test:faults`): scripts/figures.mjs
 * prints the parts of a suite joined in `order`, e.g. writeFigure('security', 10, 'xss', 'xss: 212 payloads x 30 pages, 0 executions').
 */
export function writeFigure(suite: 'security' | 'faults', order: number, part: string, text: string): void {
  const dir = path.join(process.env.HERALD_FIGURES_DIR ?? path.join(root, '.figures'), suite);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${String(order).padStart(2, '0')}-${part}.txt`), `${text}\n`);
}
