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
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline module-preload polyfill script: the CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
