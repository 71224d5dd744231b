import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../data/synth/random.js';
import type { Policy } from '../eval/evaluate.js';
import { actorMean, type PpoNetworks } from './ppo-update.js';

/*
 * Acting with PPO's networks: one batched forward pass for every env at once (means and values
 * come back from the backend in one read each), then the Gaussian sample and its log-density in
 * JavaScript with a seeded generator, so a seed fixes every action.
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

  constructor(private readonly nets: PpoNetworks) {
    this.stateDim = nets.config.stateDim;
    this.actionDim = nets.config.actionDim;
  }

  /** The means (n × actionDim) and, when asked, the values (n) of `n` states. */
  forward(
    states: Float32Array,
    n: number,
    withValues: boolean,
  ): { means: Float32Array; values?: Float32Array } {
    const input =
      states.length === n * this.stateDim ? states : states.subarray(0, n * this.stateDim);
    return tf.tidy(() => {
      const x = tf.tensor2d(input, [n, this.stateDim]);
      const means = actorMean(this.nets, x).dataSync() as Float32Array;
      if (!withValues) return { means };
      const values = this.nets.critic.apply(x).dataSync() as Float32Array;
      return { means, values };
    });
  }

  /** The critic's values of `n` states. */
  values(states: Float32Array, n: number): Float32Array {
    return tf.tidy(
      () =>
        this.nets.critic
          .apply(tf.tensor2d(states.subarray(0, n * this.stateDim), [n, this.stateDim]))
          .dataSync() as Float32Array,
    );
  }

  /** Samples an action for each of `n` states into `out` (a ~ N(mean, exp(logStd)²)). */
  sample(states: Float32Array, n: number, rng: Rng, out: ActionSample): void {
    const { means, values } = this.forward(states, n, true);
    const logStd = this.nets.logStd.dataSync();
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
    return (obs, actions) => {
      const n = actions.length / this.actionDim;
      const { means } = this.forward(obs, n, false);
      actions.set(means);
    };
  }
}
