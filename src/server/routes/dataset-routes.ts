import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { formatDatasetKey, openDatasetStore, parseDatasetKey } from '../../data/index.js';
import { ErrorBodySchema } from '../api-error.js';
import type { ServiceContext } from '../service-context.js';

const DatasetSchema = z
  .object({
    dataset: z.string().openapi({ example: 'BTCUSDT:1h' }),
    symbol: z.string(),
    timeframe: z.string(),
    calendar: z.string(),
    rows: z.number().int(),
    firstMs: z.number(),
    lastMs: z.number(),
    adjusted: z.boolean(),
    derivedFrom: z.string().nullable(),
    status: z.enum(['ok', 'missing', 'damaged']),
    updatedAt: z.string(),
  })
  .openapi('Dataset');

const SeriesSchema = z
  .object({
    dataset: z.string(),
    times: z.array(z.number()).openapi({ description: 'bar open times, ms UTC' }),
    close: z.array(z.number()),
  })
  .openapi('CloseSeries');

const DatasetParam = z.object({
  dataset: z.string().openapi({ param: { name: 'dataset', in: 'path' }, example: 'BTCUSDT:1h' }),
});

const list = createRoute({
  method: 'get',
  path: '/api/datasets',
  summary: 'the datasets in the store, and whether their files are whole',
  responses: {
    200: {
      content: { 'application/json': { schema: z.array(DatasetSchema) } },
      description: 'the datasets, sorted by key',
    },
  },
});

const closes = createRoute({
  method: 'get',
  path: '/api/datasets/{dataset}/closes',
  summary: "a dataset's closes, thinned to at most `points` evenly spaced bars (for a chart)",
  request: {
    params: DatasetParam,
    query: z.object({ points: z.coerce.number().int().min(2).max(20_000).default(1000) }),
  },
  responses: {
    200: { content: { 'application/json': { schema: SeriesSchema } }, description: 'the closes' },
    400: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'bad key' },
    404: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'no such' },
  },
});

/** `/api/datasets`. */
export function datasetRoutes(ctx: ServiceContext): OpenAPIHono {
  const app = new OpenAPIHono();
  const store = (): ReturnType<typeof openDatasetStore> =>
    openDatasetStore(ctx.project.config.settings.dataDir);
  app.openapi(list, (c) => {
    const s = store();
    return c.json(
      s.list().map((e) => ({
        dataset: formatDatasetKey(e),
        symbol: e.symbol,
        timeframe: e.timeframe,
        calendar: e.calendar,
        rows: e.rows,
        firstMs: e.firstMs,
        lastMs: e.lastMs,
        adjusted: e.adjusted,
        derivedFrom: e.derivedFrom ?? null,
        status: s.fileStatus(e),
        updatedAt: e.updatedAt,
      })),
      200,
    );
  });
  app.openapi(closes, async (c) => {
    const { dataset } = c.req.valid('param');
    const { points } = c.req.valid('query');
    // The key's own grammar (SYMBOL:TF, no separators) keeps it inside the store.
    const key = parseDatasetKey(dataset);
    const { bars } = await store().read(key);
    const n = bars.close.length;
    const step = Math.max(1, Math.ceil(n / points));
    const times: number[] = [];
    const close: number[] = [];
    for (let i = 0; i < n; i += step) {
      times.push(bars.timestamps[i] as number);
      close.push(bars.close[i] as number);
    }
    if (n > 0 && (n - 1) % step !== 0) {
      times.push(bars.timestamps[n - 1] as number);
      close.push(bars.close[n - 1] as number);
    }
    return c.json({ dataset: formatDatasetKey(key), times, close }, 200);
  });
  return app;
}
