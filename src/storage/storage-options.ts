/** Options every study storage takes. */
export interface StorageOptions {
  /** Where artifacts larger than `maxInlineArtifactBytes` are written as files. */
  artifactDir?: string;
  /** Artifacts up to this size live in the database. Default 16 MiB. */
  maxInlineArtifactBytes?: number;
}

/** The default of {@link StorageOptions.maxInlineArtifactBytes}. */
export const DEFAULT_MAX_INLINE_ARTIFACT_BYTES = 16 * 1024 * 1024;
