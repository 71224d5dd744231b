import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';

/*
 * The dashboard's files: its page and stylesheet (dashboard/), its scripts (compiled from
 * dashboard/src/ into dist/dashboard/ by `npm run build`) and uPlot's module and stylesheet from
 * node_modules — nothing from a CDN. The table of files is made once at start; a request can
 * only pick an entry of it, so no request path ever reaches the file system.
 */

/** The package's root: two folders above this file (dist/server/ or src/server/). */
const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

interface Asset {
  type: string;
  bytes: Buffer;
}

function assetOf(file: string): Asset {
  const ext = file.slice(file.lastIndexOf('.'));
  return { type: TYPES[ext] ?? 'application/octet-stream', bytes: readFileSync(file) };
}

/** URL path → file, for every file the dashboard serves. */
function assetTable(): Map<string, Asset> {
  const table = new Map<string, Asset>();
  const page = join(PACKAGE_ROOT, 'dashboard');
  table.set('/', assetOf(join(page, 'index.html')));
  table.set('/assets/style.css', assetOf(join(page, 'style.css')));
  const uplot = dirname(createRequire(import.meta.url).resolve('uplot'));
  table.set('/assets/uPlot.esm.js', assetOf(join(uplot, 'uPlot.esm.js')));
  table.set('/assets/uPlot.min.css', assetOf(join(uplot, 'uPlot.min.css')));
  const scripts = join(PACKAGE_ROOT, 'dist', 'dashboard');
  if (existsSync(scripts)) {
    for (const entry of readdirSync(scripts, { recursive: true, encoding: 'utf8' })) {
      const name = entry.split(sep).join('/');
      if (name.endsWith('.js')) table.set(`/assets/${name}`, assetOf(join(scripts, entry)));
    }
  }
  return table;
}

/** GET / and /assets/*: the dashboard. */
export function dashboardRoutes(): Hono {
  const table = assetTable();
  const app = new Hono();
  const serve = (path: string): Response | undefined => {
    const asset = table.get(path);
    if (asset === undefined) return undefined;
    return new Response(asset.bytes, {
      headers: {
        'Content-Type': asset.type,
        'Cache-Control': path === '/' ? 'no-cache' : 'max-age=300',
      },
    });
  };
  app.get('/', (c) => serve('/') ?? c.notFound());
  // Browsers ask for it on every page; there is none, and saying so quietly keeps consoles clean.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/assets/*', (c) => serve(c.req.path) ?? c.notFound());
  return app;
}
