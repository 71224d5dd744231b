import {
  learningCheck,
  type LearningCheckOptions,
  type LearningCheckResult,
} from '../agents/learning-check.js';
import type { PpoConfig } from '../agents/ppo-config.js';
import { useBackend } from '../compute/backends.js';

/** The planted signal strengths `bench learn` trains on by default, strongest first. */
export const LEARN_SIGNALS: readonly number[] = [0.2, 0.1, 0.05, 0];

/** Options for {@link benchLearn}. */
export interface LearnBenchOptions {
  /** Planted signal strengths to train on (0: a random walk). Default {@link LEARN_SIGNALS}. */
  signals?: readonly number[];
  /** Seeds per signal. Default [1, 2, 3, 4, 5]. */
  seeds?: readonly number[];
  /** Env steps of training per run. Default 300,000. */
  steps?: number;
  /** PPO settings over the learning check's own (LEARNING_CHECK_PPO). Default none. */
  ppo?: Partial<PpoConfig>;
  /** How actions become trades. Default: the env's (orders, a share of the portfolio). */
  trading?: LearningCheckOptions['trading'];
  /** Called after each run (for progress). */
  onResult?: (result: LearningCheckResult, done: number, total: number) => void;
}

/**
 * The longer learning test: for each signal strength and seed, train PPO on the first half of a
 * synthetic market and compare the held-out Sharpe with buy-and-hold's.
 */
export async function benchLearn(options: LearnBenchOptions = {}): Promise<LearningCheckResult[]> {
  await useBackend('wasm');
  const signals = options.signals ?? LEARN_SIGNALS;
  const seeds = options.seeds ?? [1, 2, 3, 4, 5];
  const results: LearningCheckResult[] = [];
  for (const signal of signals)
    for (const seed of seeds) {
      const result = await learningCheck({
        signal,
        seed,
        steps: options.steps ?? 300_000,
        ...(options.ppo === undefined ? {} : { ppo: options.ppo }),
        ...(options.trading === undefined ? {} : { trading: options.trading }),
      });
      results.push(result);
      options.onResult?.(result, results.length, signals.length * seeds.length);
    }
  return results;
}
