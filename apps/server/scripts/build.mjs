// Build the server for `npm start`: src/app/main.ts and the sender thread, bundled with esbuild into dist/ as plain
// ES modules that Node runs without a TypeScript loader. Herald's own packages (@herald/*, TypeScript source) are
// bundled in; every other package stays in node_modules and is imported from there.
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
// `--outdir <dir>` builds elsewhere (the production-start test); the dir must sit under the repo, where Node
// finds node_modules for the bundle's package imports.
const outdirFlag = process.argv.indexOf('--outdir');
const outdir = outdirFlag > 0 ? path.resolve(process.argv[outdirFlag + 1]) : path.join(root, 'dist');
const ownPackages = /^@herald\//;

await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/app/main.ts', 'sender-thread': 'src/features/deliveries/sender-thread.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  // The bundle's chunks import packages by name, as the source does.
  plugins: [
    {
      name: 'node-modules-external',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          ownPackages.test(args.path) || path.isAbsolute(args.path)
            ? undefined
            : { path: args.path, external: true },
        );
      },
    },
  ],
});
console.log(`server built into ${path.relative(process.cwd(), outdir) || '.'}`);
