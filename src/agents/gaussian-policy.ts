import * as tf from '../compute/tfjs.js';
import { TransferMeter } from '../compute/transfer-meter.js';
import type { Rng } from '../core/random.js';
import type { Policy } from '../eval/evaluate.js';
import { actorMean, type PpoNetworks } from './ppo-update.js';

/*
 * Acting with PPO's networks: one batched forward pass for every env at once, whose means and
 * values come back in a single read (on a GPU each read is a round trip), then the Gaussian sample
 * and its log-density in JavaScript with a seeded generator, so a seed fixes every action. Reads
 * are asynchronous: webgpu cannot read synchronously in Node.
 */

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** What {@link GaussianActor.sample} writes, one row per env. */
export interface ActionSample {
  /** Sampled actions (n × actionDim), unclipped: the env clips to [−1, 1]. */
  actions: Float32Array;
  /** Log-density of each row's action under the policy. */
  logProbs: Float32Array;
  /** The critic's value of each row's state. */
  values: Float32Array;
}

/** Batched acting with a set of {@link PpoNetworks}. */
export class GaussianActor {
  readonly stateDim: number;
  readonly actionDim: number;

  /** `transfer` counts this actor's uploads and reads. */
  constructor(
    private readonly nets: PpoNetworks,
    readonly transfer: TransferMeter = new TransferMeter(),
  ) {
    this.stateDim = nets.config.stateDim;
    this.actionDim = nets.config.actionDim;
  }

  /** The means (n × actionDim) and, when asked, the values (n) of `n` states. */
  async forward(
    states: Float32Array,
    n: number,
    withValues: boolean,
  ): Promise<{ means: Float32Array; values?: Float32Array }> {
    const input =
      states.length === n * this.stateDim ? states : states.subarray(0, n * this.stateDim);
    const x = this.transfer.upload<tf.Rank.R2>(input, [n, this.stateDim]);
    const out = tf.tidy(() => {
      const means = actorMean(this.nets, x);
      return withValues ? tf.concat([means, this.nets.critic.apply(x)], 1) : means;
    });
    x.dispose();
    try {
      const rows = await this.transfer.read(out);
      if (!withValues) return { means: rows };
      // Split the (n × (actionDim + 1)) rows into means and values.
      const dims = this.actionDim;
      const means = new Float32Array(n * dims);
      const values = new Float32Array(n);
      for (let e = 0; e < n; e++) {
        means.set(rows.subarray(e * (dims + 1), e * (dims + 1) + dims), e * dims);
        values[e] = rows[e * (dims + 1) + dims] as number;
      }
      return { means, values };
    } finally {
      out.dispose();
    }
  }

  /** The critic's values of `n` states. */
  async values(states: Float32Array, n: number): Promise<Float32Array> {
    const x = this.transfer.upload<tf.Rank.R2>(states.subarray(0, n * this.stateDim), [
      n,
      this.stateDim,
    ]);
    const out = tf.tidy(() => this.nets.critic.apply(x));
    x.dispose();
    try {
      return await this.transfer.read(out);
    } finally {
      out.dispose();
    }
  }

  /** The policy's log standard deviations (read once per rollout: they change only in updates). */
  async logStd(): Promise<Float32Array> {
    return this.transfer.read(this.nets.logStd);
  }

  /**
   * Samples an action for each of `n` states into `out` (a ~ N(mean, exp(logStd)²)), with the
   * log-std from {@link logStd}.
   */
  async sample(
    states: Float32Array,
    n: number,
    logStd: Float32Array,
    rng: Rng,
    out: ActionSample,
  ): Promise<void> {
    const { means, values } = await this.forward(states, n, true);
    const dims = this.actionDim;
    let constant = 0;
    for (let d = 0; d < dims; d++) constant += (logStd[d] as number) + LOG_SQRT_2PI;
    for (let e = 0; e < n; e++) {
      let logProb = -constant;
      for (let d = 0; d < dims; d++) {
        const noise = rng.normal();
        const i = e * dims + d;
        out.actions[i] = (means[i] as number) + Math.exp(logStd[d] as number) * noise;
        // z is the noise itself, recomputed from the float32 action as the update will.
        const z = (out.actions[i] - (means[i] as number)) / Math.exp(logStd[d] as number);
        logProb -= 0.5 * z * z;
      }
      out.logProbs[e] = logProb;
      out.values[e] = (values as Float32Array)[e] as number;
    }
  }

  /** The deterministic policy (the mean, clipped by the env) as the evaluator takes it. */
  deterministic(): Policy {
    return async (obs, actions) => {
      const n = actions.length / this.actionDim;
      const { means } = await this.forward(obs, n, false);
      actions.set(means);
    };
  }
}
