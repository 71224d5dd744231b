#!/usr/bin/env node
// Writes docs/openapi.json: the OpenAPI document `tradelab serve` serves at /openapi.json, so the
// API's changes show in review. test/service-api.test.ts fails when the two differ. Run it after
// `npm run build`: node scripts/write-openapi.mjs (then node scripts/write-api-types.mjs for the
// dashboard's types)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { openProject } = await import(join(root, 'dist/app/index.js'));
const { startService } = await import(join(root, 'dist/server/index.js'));
const { COMMANDS } = await import(join(root, 'dist/cli/command-table.js'));
const { jobCommandsOf } = await import(join(root, 'dist/cli/job-commands.js'));

const dir = mkdtempSync(join(tmpdir(), 'tradelab-openapi-'));
const env = { ...process.env, TRADELAB_STORAGE: 'memory:', TRADELAB_DETECT: 'false' };
const service = await startService({
  project: openProject({ cwd: dir, env }),
  port: 0,
  commands: jobCommandsOf(COMMANDS),
  jobCommand: [process.execPath, join(root, 'bin/tradelab.js')],
  slots: 1,
});
try {
  const doc = await (await fetch(`${service.url}/openapi.json`)).json();
  const out = join(root, 'docs', 'openapi.json');
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote ${out}`);
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}
