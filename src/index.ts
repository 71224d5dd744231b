/**
 * tradelab's programmatic API: what the CLI (and later the HTTP server) call. Everything here is
 * also reachable from the CLI; nothing here prints.
 */
export * from './core/index.js';
export * from './config/index.js';
export * from './profiles/index.js';
export * from './app/index.js';
export * from './data/index.js';
export * from './eval/index.js';
export * from './env/index.js';
export * from './storage/index.js';
export * from './tune/index.js';
export * from './compute/index.js';
export * from './models/index.js';
export * from './agents/index.js';
