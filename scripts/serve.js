#!/usr/bin/env node
// `npm start`: serves the production build on localhost with the COOP/COEP headers the lab needs
// (cross-origin isolation enables wasm threads), and prints the URL.
import { preview } from 'vite';

const port = Number(process.env.PORT ?? 4173);
const server = await preview({ preview: { port, host: process.env.HOST ?? '127.0.0.1', strictPort: false } });
const url = server.resolvedUrls?.local[0] ?? `http://localhost:${port}/`;
console.log(`\nTurnwise lab: ${url}\n(Ctrl+C to stop)`);
