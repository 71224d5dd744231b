/**
 * Which Parquet library should the dataset store use? Writes and reads the store's schema (a
 * timestamp and five float64 OHLCV columns) with each candidate and reports rows/s written,
 * rows/s read and bytes on disk per million bars; every file is read back by DuckDB too, so a row
 * only counts if another engine gets the same values.
 *
 * Prices are rounded to a tick the way exchange data is (random full-precision doubles barely
 * compress; real prices do, since most of their 52 mantissa bits are fixed by the tick):
 *   btc   — synthetic 1-minute walk scaled to ~30,000, tick 0.01, volume to 0.00001 (the timed set)
 *   stock — the same walk at ~100, tick 0.01, volume in whole shares (bytes only)
 *
 * Run (hyparquet-writer and hysnappy are not dependencies of tradelab: install them unsaved):
 *   npm run build
 *   npm i --no-save --ignore-scripts hyparquet-writer@0.17.0 hysnappy@1.1.1
 *   node bench/parquet-libraries.mjs [--rows 1000000] [--repeat 5] [--only TEXT] [--baseline DIST]
 * --baseline names the dist/ of a tradelab build from before the store moved to these libraries
 * (commit c024865 or earlier), to time the uncompressed codec it had. A library that is not
 * installed is left out. Timings are medians; on a shared machine compare ratios within one run.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    repeat: { type: 'string', default: '5' },
    only: { type: 'string' },
    baseline: { type: 'string' },
  },
});
const ROWS = Number(args.rows);
const REPEAT = Number(args.repeat);
const COLUMNS = ['timestamp', 'open', 'high', 'low', 'close', 'volume'];
const PRICES = ['open', 'high', 'low', 'close'];

const out = (line = '') => process.stdout.write(`${line}\n`);

/** Epoch-ms doubles as int64 words, without a BigInt per value (exact below 2^53). */
function toInt64(ms) {
  const words = new Int32Array(ms.length * 2);
  for (let i = 0; i < ms.length; i++) {
    const hi = Math.floor(ms[i] / 4294967296);
    words[2 * i] = ms[i] - hi * 4294967296;
    words[2 * i + 1] = hi;
  }
  return new BigInt64Array(words.buffer);
}

/** The inverse of {@link toInt64}. */
function fromInt64(values) {
  const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
  const ms = new Float64Array(values.length);
  for (let i = 0; i < ms.length; i++) ms[i] = words[2 * i + 1] * 4294967296 + (words[2 * i] >>> 0);
  return ms;
}

/** Loads a module or returns undefined when it is not installed. */
async function optional(name) {
  try {
    return await import(name);
  } catch (error) {
    if (error.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

async function makeData() {
  const { generateSynthetic } = await import('../dist/data/synth/generate-synthetic.js');
  const market = generateSynthetic({ symbols: 1, bars: ROWS, timeframe: '1m', seed: 4 });
  const bars = market.bars[0];
  // Math.round(x * 10^d) / 10^d is the double nearest the d-decimal number, as a parser gives.
  const round = (x, decimals) => Math.round(x * 10 ** decimals) / 10 ** decimals;
  const shape = (priceScale, volumeScale, volumeDecimals) => {
    const table = { timestamp: Float64Array.from(bars.timestamps) };
    for (const p of PRICES) table[p] = bars[p].map((x) => round(x * priceScale, 2));
    table.volume = bars.volume.map((x) => round(x * volumeScale, volumeDecimals));
    return table;
  };
  return { btc: shape(300, 0.1, 5), stock: shape(1, 100, 0) };
}

// ---------------------------------------------------------------------------------------------
// Candidates: { name, compression, write(path, table), read(path) → table of Float64Arrays }
// ---------------------------------------------------------------------------------------------

/** The uncompressed codec tradelab maintained until the store moved (from --baseline). */
async function formerCodec() {
  if (args.baseline === undefined) return [];
  const dist = pathToFileURL(resolve(args.baseline)).href;
  const writer = await import(`${dist}/data/parquet/write-parquet.js`);
  const reader = await import(`${dist}/data/parquet/read-parquet.js`);
  if (writer.PARQUET_CREATED_BY !== 'tradelab')
    throw new Error(`${args.baseline}: not the former codec`);
  return [tradelabIo('former tradelab codec (baseline)', 'none (PLAIN)', writer, reader, {})];
}

/** What the store does now: writeParquetFile (parquet-wasm) and readParquetFile (hyparquet). */
async function currentStore() {
  const writer = await optional('../dist/data/parquet/write-parquet.js');
  const reader = await optional('../dist/data/parquet/read-parquet.js');
  if (writer === undefined || reader === undefined || writer.PARQUET_CREATED_BY !== undefined)
    return [];
  return [
    tradelabIo(
      'tradelab store: parquet-wasm write, hyparquet read',
      'snappy, delta ts, plain',
      writer,
      reader,
      {},
    ),
  ];
}

function tradelabIo(name, compression, writer, reader, options) {
  return {
    name,
    compression,
    write: (path, t) =>
      writer.writeParquetFile(
        path,
        {
          columns: COLUMNS.map((column) => ({
            name: column,
            type: column === 'timestamp' ? 'timestamp-ms' : 'double',
            values: t[column],
          })),
        },
        { fsync: false, ...options },
      ),
    read: async (path) => (await reader.readParquetFile(path)).columns,
  };
}

async function parquetWasm() {
  const pw = await optional('parquet-wasm');
  const arrow = await optional('apache-arrow');
  if (pw === undefined || arrow === undefined) return [];
  // Node resolves the package to its node build, which loads its wasm (inside the package) itself.

  const toArrow = (t) => {
    const ts = toInt64(t.timestamp);
    const columns = {
      timestamp: arrow.makeVector(
        arrow.makeData({
          type: new arrow.TimestampMillisecond('UTC'),
          length: ts.length,
          data: ts,
        }),
      ),
    };
    for (const c of COLUMNS.slice(1)) columns[c] = arrow.makeVector(t[c]);
    return new arrow.Table(columns);
  };
  const variant = (name, compression, configure) => ({
    name,
    compression,
    write: async (path, t) => {
      const ipc = arrow.tableToIPC(toArrow(t), 'stream');
      const table = pw.Table.fromIPCStream(ipc);
      const builder = configure(new pw.WriterPropertiesBuilder()).setMaxRowGroupSize(1 << 20);
      writeFileSync(path, pw.writeParquet(table, builder.build()));
    },
    read: async (path) => {
      const wasmTable = pw.readParquet(readFileSync(path), { batchSize: 1 << 20 });
      const table = arrow.tableFromIPC(wasmTable.intoIPCStream());
      const result = {};
      for (const c of COLUMNS) {
        const values = table.getChild(c).toArray();
        result[c] = values instanceof BigInt64Array ? fromInt64(values) : values;
      }
      return result;
    },
  });
  // Timestamps delta-encoded (a regular grid packs to almost nothing), no dictionaries.
  const plain = (b) =>
    b.setDictionaryEnabled(false).setColumnEncoding('timestamp', pw.Encoding.DELTA_BINARY_PACKED);
  const splitFloats = (b) => {
    b = plain(b);
    for (const c of COLUMNS.slice(1)) b = b.setColumnEncoding(c, pw.Encoding.BYTE_STREAM_SPLIT);
    return b;
  };
  const name = 'parquet-wasm 0.8 + apache-arrow 21';
  return [
    variant(name, 'zstd, defaults (dictionary)', (b) => b.setCompression(pw.Compression.ZSTD)),
    variant(name, 'zstd, delta ts, plain', (b) => plain(b.setCompression(pw.Compression.ZSTD))),
    variant(name, 'zstd, delta ts, byte-stream-split', (b) =>
      splitFloats(b.setCompression(pw.Compression.ZSTD)),
    ),
    variant(name, 'snappy, defaults (dictionary)', (b) => b.setCompression(pw.Compression.SNAPPY)),
    variant(name, 'snappy, delta ts, plain', (b) => plain(b.setCompression(pw.Compression.SNAPPY))),
    variant(name, 'lz4_raw, delta ts, plain', (b) =>
      plain(b.setCompression(pw.Compression.LZ4_RAW)),
    ),
  ];
}

async function hyparquet() {
  const hw = await optional('hyparquet-writer');
  const hp = await optional('hyparquet');
  const hc = await optional('hyparquet-compressors');
  const hs = await optional('hysnappy');
  if (hw === undefined || hp === undefined || hc === undefined || hs === undefined) return [];
  const snappyCompress = hs.snappyCompressor();
  const schema = [
    { name: 'root', num_children: COLUMNS.length },
    {
      name: 'timestamp',
      type: 'INT64',
      repetition_type: 'REQUIRED',
      converted_type: 'TIMESTAMP_MILLIS',
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
    },
    ...COLUMNS.slice(1).map((name) => ({ name, type: 'DOUBLE', repetition_type: 'REQUIRED' })),
  ];
  const variant = (compression, encodings) => ({
    name: 'hyparquet 1.31 + hyparquet-writer 0.17 (+ hysnappy)',
    compression,
    write: async (path, t) => {
      const ts = toInt64(t.timestamp);
      // Sized for the uncompressed data: the default 1 KiB buffer doubles its way up, copying.
      const writer = new hw.ByteWriter(t.timestamp.length * COLUMNS.length * 8 + (1 << 20));
      hw.parquetWrite({
        writer,
        schema,
        columnData: COLUMNS.map((name) => ({
          name,
          data: name === 'timestamp' ? ts : t[name],
          ...(encodings === undefined ? {} : { encoding: encodings[name === 'timestamp' ? 0 : 1] }),
        })),
        codec: 'SNAPPY',
        compressors: { SNAPPY: snappyCompress },
        rowGroupSize: 1 << 20,
      });
      writeFileSync(path, writer.getBytes());
    },
    read: async (path) => {
      const buffer = readFileSync(path);
      const file = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
      const metadata = hp.parquetMetadata(file);
      // Timestamps as raw int64 (no per-value conversion to Date), converted in bulk, as the store does.
      metadata.schema = metadata.schema.map(({ logical_type: _l, converted_type: _c, ...e }) => e);
      const n = Number(metadata.num_rows);
      const result = Object.fromEntries(COLUMNS.map((c) => [c, new Float64Array(n)]));
      await hp.parquetRead({
        file,
        metadata,
        compressors: hc.compressors,
        onChunk: ({ columnName, columnData, rowStart }) => {
          result[columnName].set(
            columnData instanceof BigInt64Array ? fromInt64(columnData) : columnData,
            rowStart,
          );
        },
      });
      return result;
    },
  });
  return [
    variant('snappy, defaults (dictionary)'),
    variant('snappy, delta ts, plain', ['DELTA_BINARY_PACKED', 'PLAIN']),
    variant('snappy, delta ts, byte-stream-split', ['DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT']),
  ];
}

async function duckdb() {
  const duck = await optional('@duckdb/node-api');
  if (duck === undefined) return [];
  const instance = await duck.DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  const types = COLUMNS.map(() => duck.DOUBLE);
  const variant = (compression, options) => ({
    name: 'DuckDB 1.5 (@duckdb/node-api)',
    compression,
    write: async (path, t) => {
      await connection.run(
        `CREATE OR REPLACE TABLE bars (${COLUMNS.map((c) => `"${c}" DOUBLE`).join(', ')})`,
      );
      const appender = await connection.createAppender('bars');
      const n = t.timestamp.length;
      const chunkRows = 2048;
      for (let start = 0; start < n; start += chunkRows) {
        const rows = Math.min(chunkRows, n - start);
        const chunk = duck.DuckDBDataChunk.create(types, rows);
        COLUMNS.forEach((c, k) => {
          const vector = chunk.getColumnVector(k);
          vector.items.set(t[c].subarray(start, start + rows));
          vector.flush();
        });
        appender.appendDataChunk(chunk);
      }
      appender.closeSync();
      await connection.run(
        `COPY (SELECT make_timestamptz(CAST("timestamp" AS BIGINT) * 1000) AS "timestamp", ${COLUMNS.slice(
          1,
        )
          .map((c) => `"${c}"`)
          .join(', ')} FROM bars) TO '${path}' (FORMAT parquet, ${options})`,
      );
    },
    read: (path) => readWithDuckDb(duck, connection, path),
  });
  return {
    candidates: [
      variant('zstd, defaults (dictionary)', 'COMPRESSION zstd'),
      variant('zstd, parquet v2 encodings', 'COMPRESSION zstd, PARQUET_VERSION v2'),
      variant('snappy, defaults (dictionary)', 'COMPRESSION snappy'),
    ],
    verify: (path) => readWithDuckDb(duck, connection, path),
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** Reads the bars through DuckDB straight from its vectors (no per-value getItem). */
async function readWithDuckDb(duck, connection, path) {
  const result = await connection.run(
    `SELECT CAST(epoch_ms("timestamp") AS DOUBLE), ${COLUMNS.slice(1)
      .map((c) => `CAST("${c}" AS DOUBLE)`)
      .join(', ')} FROM read_parquet('${path}')`,
  );
  const n = result.rowCount;
  const table = Object.fromEntries(COLUMNS.map((c) => [c, new Float64Array(n)]));
  let row = 0;
  for (let i = 0; i < result.chunkCount; i++) {
    const chunk = result.getChunk(i);
    COLUMNS.forEach((c, k) => table[c].set(chunk.getColumnVector(k).items, row));
    row += chunk.rowCount;
  }
  return table;
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

/** Median wall and process-CPU seconds of REPEAT runs (CPU time is less inflated by other load). */
async function timed(step) {
  const wall = [];
  const cpu = [];
  for (let i = 0; i < REPEAT; i++) {
    const used = process.cpuUsage();
    const start = performance.now();
    await step();
    wall.push((performance.now() - start) / 1000);
    const { user, system } = process.cpuUsage(used);
    cpu.push((user + system) / 1e6);
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wall: median(wall), cpu: median(cpu) };
}

function sameValues(expected, actual) {
  for (const c of COLUMNS) {
    const a = expected[c];
    const b = actual[c];
    if (b === undefined || a.length !== b.length) return `${c}: length ${b?.length} ≠ ${a.length}`;
    for (let i = 0; i < a.length; i++)
      if (!Object.is(a[i], b[i])) return `${c}[${i}]: ${b[i]} ≠ ${a[i]}`;
  }
  return undefined;
}

const fmt = (x) => Math.round(x).toLocaleString('en-US');

async function main() {
  const data = await makeData();
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-parquet-libraries-'));
  const duck = await duckdb();
  const all = [
    ...(await formerCodec()),
    ...(await currentStore()),
    ...(await parquetWasm()),
    ...(await hyparquet()),
    ...(Array.isArray(duck) ? duck : duck.candidates),
  ];
  const candidates = all.filter(
    (c) => args.only === undefined || `${c.name} ${c.compression}`.includes(args.only),
  );
  const rows = [];
  try {
    for (const [k, candidate] of candidates.entries()) {
      const path = join(dir, `c${k}.parquet`);
      const bytes = {};
      for (const set of ['stock', 'btc']) {
        await candidate.write(path, data[set]);
        bytes[set] = (statSync(path).size * 1_000_000) / ROWS;
        const problem =
          sameValues(data[set], await candidate.read(path)) ??
          (duck.verify === undefined ? undefined : sameValues(data[set], await duck.verify(path)));
        if (problem !== undefined)
          throw new Error(`${candidate.name} ${candidate.compression}: ${set} ${problem}`);
      }
      // The btc set (written last) is the one timed.
      const write = await timed(() => candidate.write(path, data.btc));
      const read = await timed(() => candidate.read(path));
      rows.push({ ...candidate, write, read, bytes });
      process.stderr.write(`… ${candidate.name}, ${candidate.compression}\n`);
    }
  } finally {
    duck.close?.();
    rmSync(dir, { recursive: true, force: true });
  }

  const header = [
    'LIBRARY',
    'COMPRESSION, ENCODING',
    'WRITE ROWS/S',
    '(CPU)',
    'READ ROWS/S',
    '(CPU)',
    'BYTES/M BARS btc',
    'stock',
  ];
  const lines = rows.map((r) => [
    r.name,
    r.compression,
    fmt(ROWS / r.write.wall),
    fmt(ROWS / r.write.cpu),
    fmt(ROWS / r.read.wall),
    fmt(ROWS / r.read.cpu),
    fmt(r.bytes.btc),
    fmt(r.bytes.stock),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  out(row(header));
  for (const l of lines) out(row(l));
  out();
  out(
    `${fmt(ROWS)} bars, medians of ${REPEAT} runs, ${availableParallelism()} CPUs, Node ${process.version}, ` +
      `load average ${loadavg()[0].toFixed(2)} at the end. Rates from the median wall time, and (CPU) from the ` +
      `median process CPU time (user + system, all threads). Write = encode + write to the page cache (no fsync); ` +
      `read = file → one Float64Array per column (epoch-ms timestamps). Every file was read back equal by its ` +
      `own reader and by DuckDB.`,
  );
}

await main();
