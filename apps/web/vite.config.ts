import { defineConfig } from 'vite';

const apiTarget = process.env.HERALD_API_URL ?? 'http://localhost:3000';

// No React plugin: esbuild's automatic JSX runtime is all the app needs (no Fast Refresh).
export default defineConfig({
  esbuild: { jsx: 'automatic' },
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
    chunkSizeWarningLimit: 1000,
    rollupOptions: {
      onwarn(warning, warn) {
        // Mantine marks its modules "use client" for server components; irrelevant in a browser bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        if (warning.message.includes('annotation that Rollup cannot interpret')) return;
        warn(warning);
      },
      output: {
        manualChunks(id) {
          if (!id.includes('node_modules')) return undefined;
          if (id.includes('@mantine')) return 'mantine';
          if (id.includes('@tabler')) return 'icons';
          return 'vendor';
        },
      },
    },
  },
});
