import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The app's build: served by Lectern itself at /app (src/modules/app), from web/dist. Assets get
 * content-hashed names (served with a year-long cache); nothing is loaded from another origin.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  plugins: [react()],
  // `npx vite --config web/vite.config.ts`: the sources with hot reload, the API of the Lectern at
  // LECTERN_URL (default: npm start's address) behind the same origin, as in production.
  server: {
    proxy: Object.fromEntries(['/graphql', '/auth', '/files'].map((path) => [path, process.env.LECTERN_URL ?? 'http://127.0.0.1:8080'])),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline module-preload polyfill script: the CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
