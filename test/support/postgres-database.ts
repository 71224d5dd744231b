import pg from 'pg';
import { inject } from 'vitest';

/*
 * A throwaway database on the test PostgreSQL server (postgres-global-setup.ts), for tests that
 * need a postgres:// storage URL of their own.
 */

/** The test server's superuser URL, or '' when the PostgreSQL suites are skipped. */
export const TEST_POSTGRES_URL = inject('postgresUrl');

/** `url` with another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** `url` with `search_path` set to `schema`, so the tables a test makes live there. */
export function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/** A fresh, empty database: its URL, and `drop()` to remove it (with every connection to it). */
export async function freshPostgresDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(TEST_POSTGRES_URL, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
