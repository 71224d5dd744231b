/*
 * Generalized advantage estimation over a time-major rollout (index t · nEnvs + e), with the
 * env's NEXT_STEP autoreset in mind:
 *
 *   terminated at t (ran out of money): no future, δ_t = r_t − V(s_t), and the chain stops.
 *   truncated at t (range end or episode length): the episode would have gone on, so bootstrap
 *     from the final observation, δ_t = r_t + γ V(s_final) − V(s_t), and the chain stops. The env
 *     returns that final observation as the next obs, so V(s_final) is the next row's value.
 *   invalid at t (the autoreset step: action ignored, reward 0): advantage 0, left out of training.
 *   otherwise: δ_t = r_t + γ V(s_{t+1}) − V(s_t), A_t = δ_t + γλ A_{t+1}.
 *
 * The row after the last is `lastValues`, V of the observation the rollout ended on.
 */

/** One rollout's per-step arrays, time-major (steps × nEnvs). */
export interface GaeInput {
  nEnvs: number;
  rewards: Float32Array;
  /** V(s_t) as the critic saw it while collecting. */
  values: Float32Array;
  /** V of the observation after the last step, one per env. */
  lastValues: Float32Array;
  terminations: Uint8Array;
  truncations: Uint8Array;
  /** 0 where the step was an autoreset and must not be trained on. */
  valid: Uint8Array;
  gamma: number;
  lambda: number;
}

/** Advantages and value targets (advantage + value), same layout as the input. */
export interface GaeOutput {
  advantages: Float32Array;
  returns: Float32Array;
}

/** Computes GAE (see the file header). `out` arrays are reused when given. */
export function computeGae(input: GaeInput, out?: GaeOutput): GaeOutput {
  const { nEnvs, rewards, values, lastValues, terminations, truncations, valid, gamma, lambda } =
    input;
  const size = rewards.length;
  const steps = size / nEnvs;
  const advantages = out?.advantages ?? new Float32Array(size);
  const returns = out?.returns ?? new Float32Array(size);
  for (let e = 0; e < nEnvs; e++) {
    // Accumulated in float64: long chains of float32 roundings drift.
    let next = 0;
    for (let t = steps - 1; t >= 0; t--) {
      const i = t * nEnvs + e;
      const value = values[i] as number;
      if (valid[i] === 0) {
        advantages[i] = 0;
        returns[i] = value;
        next = 0;
        continue;
      }
      const nextValue = t + 1 < steps ? (values[i + nEnvs] as number) : (lastValues[e] as number);
      let advantage: number;
      if (terminations[i] === 1) advantage = (rewards[i] as number) - value;
      else {
        const delta = (rewards[i] as number) + gamma * nextValue - value;
        advantage = truncations[i] === 1 ? delta : delta + gamma * lambda * next;
      }
      advantages[i] = advantage;
      returns[i] = advantage + value;
      next = advantage;
    }
  }
  return { advantages, returns };
}
