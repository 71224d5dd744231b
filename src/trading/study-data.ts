import { isTradelabError, TradelabError } from '../core/index.js';
import { loadMarketData, type MarketData } from '../data/load-market-data.js';
import { formatDatasetKey, parseDatasetKeys } from '../data/store/dataset-key.js';
import type { DatasetStore } from '../data/store/dataset-store.js';
import { digestMarketData } from '../data/market-digest.js';
import { withRecordedEncoder } from '../agents/index.js';
import { featureOptionsOf } from './feature-groups.js';
import type { DrlStudyInput, DrlStudySpec } from './study-spec.js';

/*
 * A trading study's market data, as every reader of a study loads it (its workers, `study show`,
 * `campaign report`, `backtest --study`, the service): a study's trials, holdout and models mean
 * something only on the bars it was created on, so each load checks the digest the study stored.
 */

/** How messages name the study: `study "NAME"`, or `the study` when the caller has no name. */
function studyLabel(study: string | undefined): string {
  return study === undefined ? 'the study' : `study "${study}"`;
}

/** The bars and digest a study recorded of its data, for messages. */
function recorded(spec: DrlStudySpec): string {
  return `${spec.data.bars.toLocaleString('en-US')} bars, SHA-256 ${spec.data.digest.slice(0, 12)}…`;
}

/**
 * Loads a study's market data from `store`, with the study's indicators, and checks that it is
 * the data the study was created on (a study with a pretrained encoder adds its encodings after:
 * {@link withStudyEncoder}). `study` names the study in messages.
 * @throws TradelabError DATASET_NOT_FOUND naming the dataset the study needs when it is gone;
 *   DATA_MISMATCH when it changed since (see {@link checkStudyData}).
 */
export async function loadStudyData(
  store: DatasetStore,
  spec: DrlStudySpec,
  study?: string,
): Promise<MarketData> {
  const keys = parseDatasetKeys(spec.data.spec);
  let market: MarketData;
  try {
    market = await loadMarketData(store, keys, { features: featureOptionsOf(spec.features) });
  } catch (error) {
    if (!isTradelabError(error, 'DATASET_NOT_FOUND')) throw error;
    // The store's own message guesses at a typo; a study's dataset is no typo, it is gone.
    const missing = keys.filter((key) => store.get(key) === undefined).map(formatDatasetKey);
    throw new TradelabError(
      'DATASET_NOT_FOUND',
      `${studyLabel(study)} needs dataset ${missing.join(', ') || spec.data.spec}, which is not in the data store ${store.dir} (it was created on ${spec.data.spec}: ${recorded(spec)})`,
      {
        hint: `put the data it was created on back in that store (the same \`tradelab data import\` file or \`tradelab data synth\` command, then the same \`tradelab data resample\`), or point --data-dir (TRADELAB_DATA_DIR) at the store that holds it`,
        details: { dataset: spec.data.spec, missing, dataDir: store.dir },
        cause: error,
      },
    );
  }
  checkStudyData(market, spec, study);
  return market;
}

/**
 * Throws DATA_MISMATCH unless `market` is the data the study was created on (its stored digest):
 * a dataset replaced since (re-imported, re-synthesized with other settings) would give the
 * study's holdout and models other bars without a word.
 */
export function checkStudyData(market: MarketData, spec: DrlStudySpec, study?: string): void {
  const digest = digestMarketData(market);
  if (digest === spec.data.digest) return;
  const bars = market.timestamps.length;
  throw new TradelabError(
    'DATA_MISMATCH',
    `the dataset ${spec.data.spec} changed since ${studyLabel(study)} was created on it: it now has ${bars.toLocaleString('en-US')} bars, SHA-256 ${digest.slice(0, 12)}… (the study's: ${recorded(spec)})`,
    {
      hint: `the study's trials, holdout and models belong to the old bars: put the data it was created on back (the same import or synth), or start anew on the new data (a new study, or a campaign of another name)`,
      details: { dataset: spec.data.spec, digest, studyDigest: spec.data.digest },
    },
  );
}

/** The study's data with its pretrained encoder's encodings, when it has one. */
export function withStudyEncoder(data: MarketData, spec: DrlStudySpec): MarketData {
  return withRecordedEncoder(data, spec.encoder);
}

/** What a study records of its market data: symbols, timeframe, bars, digest, indicators. */
export function studyMarket(data: MarketData): DrlStudyInput['market'] {
  return {
    symbols: data.symbols,
    timeframe: data.timeframe,
    bars: data.timestamps.length,
    digest: digestMarketData(data),
    featureCount: data.featureNames.length,
  };
}
