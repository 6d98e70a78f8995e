import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

// The app's build settings, plus the unit tests' time limit: 30 s per test, as in the server and the packages, sized
// for a machine at half this one's usual speed with the other core busy (a first render of a Mantine dialog under
// jsdom took 4.5 s on a loaded host, against Vitest's 5 s default).
export default mergeConfig(viteConfig, defineConfig({ test: { testTimeout: 30_000 } }));
