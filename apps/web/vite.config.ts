import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** `npm run dev -w @aioscope/web` proxies the API and the socket to a running `npm start`. */
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1200 },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:7180',
      '/socket.io': { target: 'ws://127.0.0.1:7180', ws: true },
    },
  },
});
