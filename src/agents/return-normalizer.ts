/*
 * Reward scaling as cleanrl's NormalizeReward (SB3's VecNormalize norm_reward): each env keeps a
 * discounted sum of its rewards, the running variance of those sums is updated every step, and a
 * reward is divided by their standard deviation. The trading env's rewards are returns of the
 * order of 1e-3 a bar; unscaled, the critic's targets are so small that its gradient is lost beside
 * the actor's under one gradient-norm clip and its explained variance stays below 0. The running
 * statistics are part of a checkpoint, so a resumed run scales exactly as one that never stopped.
 */

/** The running statistics a checkpoint stores. */
export interface ReturnStatistics {
  /** Discounted returns seen (a pseudo-count: it starts at 1e-4, as cleanrl's RunningMeanStd). */
  count: number;
  mean: number;
  variance: number;
}

/** Rewards beyond ± this many standard deviations are clipped (cleanrl's clip_reward). */
const CLIP = 10;
const EPSILON = 1e-8;

/** Scales one vector env's rewards by the running standard deviation of its discounted returns. */
export class ReturnNormalizer {
  private readonly returns: Float64Array;
  private count = 1e-4;
  private mean = 0;
  private variance = 1;

  constructor(
    readonly nEnvs: number,
    private readonly gamma: number,
    statistics?: ReturnStatistics,
  ) {
    this.returns = new Float64Array(nEnvs);
    if (statistics !== undefined) {
      this.count = statistics.count;
      this.mean = statistics.mean;
      this.variance = statistics.variance;
    }
  }

  /** The running statistics (for a checkpoint). */
  statistics(): ReturnStatistics {
    return { count: this.count, mean: this.mean, variance: this.variance };
  }

  /** Forgets the running episodes' discounted sums (the envs were reset); keeps the statistics. */
  resetEpisodes(): void {
    this.returns.fill(0);
  }

  /**
   * Scales one step's rewards in place. `valid[e]` 0 marks an autoreset step (its reward is 0 and
   * it is not counted); `ended[e]` 1 marks an episode that ended at this step.
   */
  scale(rewards: Float32Array, valid: ArrayLike<number>, ended: ArrayLike<number>): void {
    const n = this.nEnvs;
    let batchCount = 0;
    let batchSum = 0;
    for (let e = 0; e < n; e++) {
      if (valid[e] === 0) continue;
      const r = (this.returns[e] as number) * this.gamma + (rewards[e] as number);
      this.returns[e] = r;
      batchCount++;
      batchSum += r;
    }
    if (batchCount > 0) {
      // Chan et al.'s parallel update of a mean and variance with a batch's (as RunningMeanStd).
      const batchMean = batchSum / batchCount;
      let batchSquares = 0;
      for (let e = 0; e < n; e++) {
        if (valid[e] === 0) continue;
        const d = (this.returns[e] as number) - batchMean;
        batchSquares += d * d;
      }
      const total = this.count + batchCount;
      const delta = batchMean - this.mean;
      const m2 =
        this.variance * this.count +
        batchSquares +
        (delta * delta * this.count * batchCount) / total;
      this.mean += (delta * batchCount) / total;
      this.variance = m2 / total;
      this.count = total;
    }
    const scale = 1 / Math.sqrt(this.variance + EPSILON);
    for (let e = 0; e < n; e++) {
      const scaled = (rewards[e] as number) * scale;
      rewards[e] = Math.max(-CLIP, Math.min(CLIP, scaled));
      if (ended[e] === 1) this.returns[e] = 0;
    }
  }
}
