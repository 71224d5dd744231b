import { loadMarketData, type MarketData } from '../data/load-market-data.js';
import { parseDatasetKeys } from '../data/store/dataset-key.js';
import type { DatasetStore } from '../data/store/dataset-store.js';
import { digestMarketData } from '../data/market-digest.js';
import { withRecordedEncoder } from '../agents/index.js';
import { featureOptionsOf } from './feature-groups.js';
import type { DrlStudyInput, DrlStudySpec } from './study-spec.js';

/**
 * Loads a study's market data from `store`, with the study's indicators (a study with a pretrained
 * encoder adds its encodings after checking the digest: {@link withStudyEncoder}).
 */
export function loadStudyData(store: DatasetStore, spec: DrlStudySpec): Promise<MarketData> {
  return loadMarketData(store, parseDatasetKeys(spec.data.spec), {
    features: featureOptionsOf(spec.features),
  });
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
