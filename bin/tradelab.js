#!/usr/bin/env node
// The installed entry point: runs the compiled CLI (npm ci builds it in `prepare`).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/run.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'error [INTERNAL]: tradelab is not built (dist/ is missing)\nhint: run `npm run build` (npm ci does it for you)\n',
  );
  process.exit(1);
}
await import(main.href);
