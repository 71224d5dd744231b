import { EventLoopTurns } from '../core/index.js';
import type { Rng } from '../core/random.js';
import type { VectorTradingEnv } from '../env/trading-env.js';
import type { ActionSample, GaussianActor } from './gaussian-policy.js';
import type { ReturnNormalizer } from './return-normalizer.js';

/*
 * Collecting a rollout: every env stepped together, one batched forward pass per step. Arrays are
 * time-major (row t · nEnvs + e) and allocated once per trainer.
 */

/** One rollout's transitions. */
export class RolloutBuffer {
  readonly size: number;
  readonly obs: Float32Array;
  /** Unclipped sampled actions (what the log-probabilities are of). */
  readonly actions: Float32Array;
  readonly logProbs: Float32Array;
  readonly values: Float32Array;
  readonly rewards: Float32Array;
  readonly terminations: Uint8Array;
  readonly truncations: Uint8Array;
  /** 0 on autoreset steps (action ignored, reward 0). */
  readonly valid: Uint8Array;
  /** V of the observation after the last step, per env (the bootstrap). */
  readonly lastValues: Float32Array;

  constructor(
    readonly steps: number,
    readonly nEnvs: number,
    readonly obsDim: number,
    readonly actionDim: number,
  ) {
    this.size = steps * nEnvs;
    this.obs = new Float32Array(this.size * obsDim);
    this.actions = new Float32Array(this.size * actionDim);
    this.logProbs = new Float32Array(this.size);
    this.values = new Float32Array(this.size);
    this.rewards = new Float32Array(this.size);
    this.terminations = new Uint8Array(this.size);
    this.truncations = new Uint8Array(this.size);
    this.valid = new Uint8Array(this.size);
    this.lastValues = new Float32Array(nEnvs);
  }
}

/** What one rollout saw. */
export interface RolloutStats {
  /** Returns (sum of the env's rewards, before any scaling) of the episodes that ended during the rollout. */
  episodeReturns: number[];
  /** Seconds spent stepping the envs. */
  envSeconds: number;
  /** Seconds spent in the networks' forward passes. */
  policySeconds: number;
}

/**
 * Steps `env` with a {@link GaussianActor}, keeping each env's running episode return between
 * rollouts. Call {@link reset} before the first rollout (and whenever the envs are reset). With a
 * {@link ReturnNormalizer} the buffer gets scaled rewards; episode returns stay the env's own.
 */
export class RolloutCollector {
  private obs: Float32Array | undefined;
  private readonly episodeReturn: Float64Array;
  private readonly sample: ActionSample;
  private readonly scaled: Float32Array;
  private readonly valid: Uint8Array;
  private readonly ended: Uint8Array;

  constructor(
    private readonly env: VectorTradingEnv,
    private readonly actor: GaussianActor,
    private readonly returnNormalizer?: ReturnNormalizer,
  ) {
    this.episodeReturn = new Float64Array(env.nEnvs);
    this.scaled = new Float32Array(env.nEnvs);
    this.valid = new Uint8Array(env.nEnvs);
    this.ended = new Uint8Array(env.nEnvs);
    this.sample = {
      actions: new Float32Array(env.nEnvs * env.assets),
      logProbs: new Float32Array(env.nEnvs),
      values: new Float32Array(env.nEnvs),
    };
  }

  /** Resets every env with `seed` (env i gets seed + i) and forgets the running episodes. */
  reset(seed: number): void {
    this.obs = this.env.reset({ seed }).obs;
    this.episodeReturn.fill(0);
    this.returnNormalizer?.resetEpisodes();
  }

  /** Fills `buffer` with `buffer.steps` steps of every env. */
  async collect(buffer: RolloutBuffer, rng: Rng): Promise<RolloutStats> {
    const env = this.env;
    const n = env.nEnvs;
    const { obsDim, actionDim } = buffer;
    const episodeReturns: number[] = [];
    let envSeconds = 0;
    let policySeconds = 0;
    let obs = this.obs ?? env.reset().obs;
    let policyStarted = performance.now();
    const logStd = await this.actor.logStd();
    policySeconds += performance.now() - policyStarted;
    // Turns of the event loop between steps, so that a Ctrl-C is seen during a long rollout.
    const turns = new EventLoopTurns();
    for (let t = 0; t < buffer.steps; t++) {
      const row = t * n;
      buffer.obs.set(obs.subarray(0, n * obsDim), row * obsDim);
      policyStarted = performance.now();
      await this.actor.sample(obs, n, logStd, rng, this.sample);
      policySeconds += performance.now() - policyStarted;
      buffer.actions.set(this.sample.actions, row * actionDim);
      buffer.logProbs.set(this.sample.logProbs, row);
      buffer.values.set(this.sample.values, row);
      const envStarted = performance.now();
      const result = env.step(this.sample.actions);
      envSeconds += performance.now() - envStarted;
      const scaled = this.scaled;
      scaled.set(result.rewards);
      if (this.returnNormalizer !== undefined) {
        for (let e = 0; e < n; e++) {
          this.valid[e] = result.resetMask[e] === 1 ? 0 : 1;
          this.ended[e] = result.terminations[e] === 1 || result.truncations[e] === 1 ? 1 : 0;
        }
        this.returnNormalizer.scale(scaled, this.valid, this.ended);
      }
      for (let e = 0; e < n; e++) {
        const i = row + e;
        const reward = result.rewards[e] as number;
        buffer.rewards[i] = scaled[e] as number;
        buffer.terminations[i] = result.terminations[e] as number;
        buffer.truncations[i] = result.truncations[e] as number;
        buffer.valid[i] = result.resetMask[e] === 1 ? 0 : 1;
        if (result.resetMask[e] === 1) continue;
        this.episodeReturn[e] = (this.episodeReturn[e] as number) + reward;
        if (result.terminations[e] === 1 || result.truncations[e] === 1) {
          episodeReturns.push(this.episodeReturn[e] as number);
          this.episodeReturn[e] = 0;
        }
      }
      obs = result.obs;
      await turns.maybeYield();
    }
    this.obs = obs;
    policyStarted = performance.now();
    buffer.lastValues.set(await this.actor.values(obs, n));
    policySeconds += performance.now() - policyStarted;
    return { episodeReturns, envSeconds: envSeconds / 1000, policySeconds: policySeconds / 1000 };
  }
}
