import { z } from 'zod';

const positiveInt = z.number().int().positive();
const positive = z.number().positive();
/** A published figure, or null when the vendor publishes none. */
const published = z.number().positive().nullable();

/** The bar timeframes a forecast setting may name (the store's; data/ owns the list). */
export const FORECAST_TIMEFRAMES = ['1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;
/** A timeframe of {@link FORECAST_TIMEFRAMES}. */
export type ForecastTimeframe = (typeof FORECAST_TIMEFRAMES)[number];

/**
 * Per-timeframe values: seed 004 gives daily and hourly (required); a profile may set the others,
 * and those it leaves out are derived (forecast-settings.ts).
 */
const byTimeframe = (value: z.ZodNumber) =>
  z.strictObject({
    '1d': value,
    '1h': value,
    '1m': value.optional(),
    '5m': value.optional(),
    '15m': value.optional(),
    '30m': value.optional(),
    '4h': value.optional(),
  });

/** Supervised forecasting (seed 004): batch sizes and memory per model by timeframe. */
export const ForecastSettingsSchema = z.strictObject({
  /** Training batch size by timeframe (1d and 1h required). */
  batchSize: byTimeframe(positiveInt),
  /** Memory one model needs while training, in GB, by timeframe (1d and 1h required). */
  memoryPerModelGb: byTimeframe(positive),
  /** Most models trained at once on this card. */
  maxWorkers: positiveInt,
  /** Where these numbers come from: a seed document, or ours (and how we got them). */
  source: z.string().min(1),
});

/** DRL PPO trials (seeds 000/001): minibatch size, largest `netDim`, trial workers. */
export const DrlSettingsSchema = z.strictObject({
  /** PPO minibatch size (`batchSize`). */
  batchSize: positiveInt,
  /** Largest `netDim` a study should sample on this card. */
  netDimMax: positiveInt,
  /** Most trial workers on this card. */
  maxWorkers: positiveInt,
  source: z.string().min(1),
});

/** TCN pretraining (seed 003): chunks per batch. */
export const TcnSettingsSchema = z.strictObject({
  /** Chunks (the TCN batch unit) per optimizer step. */
  chunksPerBatch: positiveInt,
  /** Most pretraining runs at once on this card. */
  maxWorkers: positiveInt,
  source: z.string().min(1),
});

/** Per-workload settings of a profile. */
export const WorkloadSettingsSchema = z.strictObject({
  forecast: ForecastSettingsSchema,
  drl: DrlSettingsSchema,
  tcn: TcnSettingsSchema,
});

/** The vendors a profile can name. `cpu` is the profile for machines without a usable GPU. */
export const VENDORS = ['nvidia', 'amd', 'intel', 'apple', 'cpu', 'other'] as const;

/** Everything a profile says about a card. Published specs are null where none is published. */
export const ProfileSpecSchema = z.strictObject({
  /** Human name, e.g. "NVIDIA RTX 4090". */
  displayName: z.string().min(1),
  vendor: z.enum(VENDORS),
  /** Architecture, e.g. "Ada Lovelace", "RDNA 3", "CDNA 3". */
  architecture: z.string().min(1).nullable(),
  /** Memory as marketed, in GB. GPU memory is sized in binary units: 1 GB here is 2^30 bytes. 0 for `cpu`. */
  vramGb: z.number().nonnegative(),
  /** GDDR6X, HBM3, … */
  memoryType: z.string().min(1).nullable(),
  /** Peak memory bandwidth, GB/s (10^9 bytes per second). */
  memoryBandwidthGBs: published,
  /** Peak FP32 (vector, non-tensor) throughput, TFLOPS. */
  fp32Tflops: published,
  /** Peak dense BF16 tensor/matrix throughput with FP32 accumulation, TFLOPS. */
  bf16Tflops: published,
  /** Streaming multiprocessors (NVIDIA) or compute units (AMD). */
  computeUnits: positiveInt.nullable(),
  /** Board power, watts. */
  tdpWatts: published,
  /** Rental price per hour in USD; 0 for a local card; null when we know no price (set one in a custom profile). */
  hourlyUsd: z.number().nonnegative().nullable(),
  /** Other names users type for this profile (matched ignoring case, spaces, `-` and `_`). */
  aliases: z.array(z.string().min(1)),
  /** Regular expressions (case-insensitive) that a detected card's name must match to use this profile. */
  match: z.array(z.string().min(1)),
  /** Where the figures come from, and what to know before relying on them. */
  notes: z.array(z.string()),
  workloads: WorkloadSettingsSchema,
});

/** The fields of a profile, as written in the built-in table or a complete custom definition. */
export type ProfileSpec = z.infer<typeof ProfileSpecSchema>;

/** Where a profile came from. */
export type ProfileOrigin = 'builtin' | 'custom' | 'derived';

/** A named, validated profile. */
export interface GpuProfile extends ProfileSpec {
  /** The canonical name, e.g. `rtx_4090`. */
  name: string;
  origin: ProfileOrigin;
  /** For custom profiles that extend another, and derived ones: the profile they start from. */
  basedOn?: string;
}

/** A workload the planner and the profiles know about. */
export type Workload = keyof ProfileSpec['workloads'];

/** The workloads, in display order. */
export const WORKLOADS: readonly Workload[] = ['drl', 'forecast', 'tcn'];

/**
 * A custom profile in a config or profiles file: either complete, or `extends` another profile and
 * overrides some fields (nested workload settings merge field by field).
 */
export const CustomProfileSchema = z.strictObject({
  /** The profile (built-in or custom) this one starts from. */
  extends: z.string().min(1).optional(),
  displayName: ProfileSpecSchema.shape.displayName.optional(),
  vendor: ProfileSpecSchema.shape.vendor.optional(),
  architecture: ProfileSpecSchema.shape.architecture.optional(),
  vramGb: ProfileSpecSchema.shape.vramGb.optional(),
  memoryType: ProfileSpecSchema.shape.memoryType.optional(),
  memoryBandwidthGBs: published.optional(),
  fp32Tflops: published.optional(),
  bf16Tflops: published.optional(),
  computeUnits: ProfileSpecSchema.shape.computeUnits.optional(),
  tdpWatts: published.optional(),
  hourlyUsd: ProfileSpecSchema.shape.hourlyUsd.optional(),
  aliases: ProfileSpecSchema.shape.aliases.optional(),
  match: ProfileSpecSchema.shape.match.optional(),
  notes: ProfileSpecSchema.shape.notes.optional(),
  workloads: z
    .strictObject({
      forecast: ForecastSettingsSchema.extend({
        batchSize: ForecastSettingsSchema.shape.batchSize.partial(),
        memoryPerModelGb: ForecastSettingsSchema.shape.memoryPerModelGb.partial(),
      })
        .partial()
        .optional(),
      drl: DrlSettingsSchema.partial().optional(),
      tcn: TcnSettingsSchema.partial().optional(),
    })
    .optional(),
});

/** A custom profile as written in a file. */
export type CustomProfileInput = z.infer<typeof CustomProfileSchema>;

/** The `profiles:` section of a config file, or a whole profiles file: name → definition. */
export const CustomProfilesSchema = z.record(
  z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9_]*$/,
      'profile names are lowercase letters, digits and "_", e.g. my_4090',
    ),
  CustomProfileSchema,
);
