import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/**
 * Mantine's stylesheet per component instead of all of it up front: each Mantine component module
 * brings its own CSS file, so a page's CSS arrives with the page's chunk (the base styles stay in
 * app/main.tsx). Saves the first page about 25 kB of gzipped CSS.
 */
function mantineCssPerComponent(): Plugin {
  const pattern = /@mantine\/core\/esm\/components\/(?:[^/]+\/)*([A-Za-z]+)\.module\.css\.mjs$/;
  return {
    name: 'herald-mantine-css-per-component',
    enforce: 'pre',
    transform(code, id) {
      const name = pattern.exec(id.split('?')[0]!)?.[1];
      if (!name) return null;
      const stylesheet = path.join(id.slice(0, id.indexOf('/esm/')), 'styles', `${name}.css`);
      if (!fs.existsSync(stylesheet)) return null;
      return { code: `import '@mantine/core/styles/${name}.css';\n${code}`, map: null };
    },
  };
}

const apiTarget = process.env.HERALD_API_URL ?? 'http://localhost:3000';

// No React plugin: esbuild's automatic JSX runtime is all the app needs (no Fast Refresh).
export default defineConfig({
  esbuild: { jsx: 'automatic' },
  plugins: [mantineCssPerComponent()],
  server: {
    port: 5173,
    proxy: { '/v1': { target: apiTarget, changeOrigin: false } },
  },
  preview: {
    port: 4173,
    proxy: { '/v1': { target: apiTarget, changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    // The bench reads which chunks each page needs from the manifest (npm run bench -- web-weight).
    manifest: true,
    chunkSizeWarningLimit: 1000,
    rollupOptions: {
      output: {
        experimentalMinChunkSize: 20_000,
        manualChunks(id) {
          if (id.includes('/@tabler/icons-react/')) return 'icons';
          if (id.includes('/@mantine/hooks/')) return 'mantine-hooks';
          return undefined;
        },
      },
      onwarn(warning, warn) {
        // Mantine marks its modules "use client" for server components; irrelevant in a browser bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        if (warning.message.includes('annotation that Rollup cannot interpret')) return;
        warn(warning);
      },
    },
  },
});
