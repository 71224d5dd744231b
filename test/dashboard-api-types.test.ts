import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/run-cli.js';

/*
 * The dashboard's types are generated from the OpenAPI document the service serves (which
 * service-api.test.ts checks is docs/openapi.json): this fails when the committed file is not what
 * the document gives, i.e. when a schema changed and `node scripts/write-api-types.mjs` was not run.
 */

describe('dashboard API types', () => {
  it('are the ones docs/openapi.json gives', async () => {
    const { apiTypesSource } = (await import(
      join(REPO_ROOT, 'scripts', 'write-api-types.mjs')
    )) as {
      apiTypesSource: (docPath: string) => Promise<string>;
    };
    const expected = await apiTypesSource(join(REPO_ROOT, 'docs', 'openapi.json'));
    const committed = readFileSync(join(REPO_ROOT, 'dashboard', 'src', 'api-schema.ts'), 'utf8');
    expect(
      committed === expected,
      'run: npm run build && node scripts/write-openapi.mjs && node scripts/write-api-types.mjs',
    ).toBe(true);
  });
});
