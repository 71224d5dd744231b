#!/usr/bin/env node
// Writes dashboard/src/api-schema.ts: the API's types, generated from docs/openapi.json (the
// document `tradelab serve` serves) by openapi-typescript, so the dashboard reads the shapes the
// server's schemas declare instead of a hand copy. test/dashboard-api-types.test.ts fails when the
// file is not what the document gives. Run it after scripts/write-openapi.mjs:
//   node scripts/write-api-types.mjs
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The TypeScript source of the types of the OpenAPI document at `docPath`. */
export async function apiTypesSource(docPath) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const doc = JSON.parse(readFileSync(docPath, 'utf8'));
  const ast = await openapiTS(doc, { exportType: true, alphabetize: true });
  return `/* Generated from docs/openapi.json by scripts/write-api-types.mjs: do not edit. */\n\n${astToString(ast)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = join(root, 'dashboard', 'src', 'api-schema.ts');
  const source = await apiTypesSource(join(root, 'docs', 'openapi.json'));
  writeFileSync(`${out}.tmp`, source);
  renameSync(`${out}.tmp`, out);
  console.log(`wrote ${out}`);
}
