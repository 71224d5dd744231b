import type { ForecastTimeframe, GpuProfile } from './profile-schema.js';

/*
 * A profile's forecasting settings for any timeframe. Seed 004 sizes daily and hourly models only;
 * for the other timeframes a profile may give its own values, and otherwise they are derived here
 * and marked as ours: a model sees a window of bars whatever their length, so intraday timeframes
 * (1m … 4h) take the hourly values, as the hourly models are the seed's sequence models.
 */

/** Batch size and memory of one forecasting model at a timeframe, and where they come from. */
export interface ForecastSettingsAt {
  timeframe: ForecastTimeframe;
  batchSize: number;
  memoryPerModelGb: number;
  maxWorkers: number;
  /** The profile's source, or how the values were derived. */
  source: string;
  /** True when the values are derived from another timeframe's (not in the profile). */
  derived: boolean;
}

/** The profile's forecasting settings at `timeframe`. */
export function forecastSettingsAt(
  profile: GpuProfile,
  timeframe: ForecastTimeframe,
): ForecastSettingsAt {
  const f = profile.workloads.forecast;
  const batch = f.batchSize[timeframe];
  const memory = f.memoryPerModelGb[timeframe];
  if (batch !== undefined && memory !== undefined)
    return {
      timeframe,
      batchSize: batch,
      memoryPerModelGb: memory,
      maxWorkers: f.maxWorkers,
      source: f.source,
      derived: false,
    };
  return {
    timeframe,
    batchSize: batch ?? f.batchSize['1h'],
    memoryPerModelGb: memory ?? f.memoryPerModelGb['1h'],
    maxWorkers: f.maxWorkers,
    source: `ours: ${timeframe} takes profile ${profile.name}'s 1h values (the GPU profile guide (PyTorch original) sizes 1d and 1h only)`,
    derived: true,
  };
}
