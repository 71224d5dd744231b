import * as tf from '../compute/tfjs.js';
import { adamStep, nativeTrainingKernelsActive, sumOfSquares } from '../compute/index.js';

/*
 * The trainers' optimizer (PPO's, the TCN's): tfjs's Adam with a learning rate that can change
 * between steps, a saved state that restores exactly, and the fused native Adam step where the
 * native kernels run.
 */

/** Names of Adam's bias-correction products in {@link ExactAdam.getWeights}. */
const ACC_BETAS = ['accBeta1', 'accBeta2'] as const;

/** A named tensor of an optimizer's state (tfjs does not export the type). */
type OptimizerWeight = Awaited<ReturnType<tf.Optimizer['getWeights']>>[number];

/** tfjs's Adam keeps β₁ᵗ⁺¹ and β₂ᵗ⁺¹ in private variables; ExactAdam saves and restores them. */
interface AdamProducts {
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
}

/** A moment slot of tfjs's Adam (private): the variable and the name it is saved under. */
interface MomentSlot {
  originalName: string;
  variable: tf.Variable;
}

/** The private state of tfjs's AdamOptimizer that the fused step reads and writes. */
interface AdamState extends AdamProducts {
  beta1: number;
  beta2: number;
  epsilon: number;
  accumulatedFirstMoment: (MomentSlot | undefined)[];
  accumulatedSecondMoment: (MomentSlot | undefined)[];
  incrementIterations(): void;
}

/**
 * Adam whose learning rate can change between steps (annealing), and whose saved state restores
 * exactly. tfjs's Adam reads its rate at every step but offers no setter; a subclass may set the
 * protected field. Its setWeights rebuilds the bias-correction products as pow(β, t + 1), where
 * training built them by t float32 multiplications: they differ in the last bit at many t (β₂ at
 * t = 2, 5, 18…), and a resumed run drifts from an uninterrupted one from its first step. So the
 * products themselves are saved (after tfjs's own weights) and put back as they were.
 */
export class ExactAdam extends tf.AdamOptimizer {
  /** Whether the last setWeights found the saved products (false: an older checkpoint's, rebuilt). */
  restoredExactly = true;

  /** The learning rate the next steps use. */
  get rate(): number {
    return this.learningRate;
  }

  /** Sets the learning rate of the next steps. */
  setLearningRate(learningRate: number): void {
    this.learningRate = learningRate;
  }

  /**
   * One step on the gradients times `scale` (norm clipping): on the native kernels, one
   * fused kernel per variable; otherwise the products, then tfjs's Adam. Same bits either way.
   */
  applyScaledGradients(grads: tf.NamedTensorMap, scale: tf.Scalar): void {
    if (nativeTrainingKernelsActive()) {
      this.fusedStep(grads, scale);
      return;
    }
    tf.tidy(() => {
      const scaled: tf.NamedTensorMap = {};
      for (const [name, g] of Object.entries(grads)) scaled[name] = tf.mul(g, scale);
      // tfjs's Adam reads plain tensors; its type asks for variables.
      this.applyGradients(scaled as Parameters<tf.AdamOptimizer['applyGradients']>[0]);
    });
  }

  /** tfjs's Adam, or the fused kernel where it runs (see {@link applyScaledGradients}). */
  override applyGradients(
    variableGradients: Parameters<tf.AdamOptimizer['applyGradients']>[0],
  ): void {
    if (nativeTrainingKernelsActive() && !Array.isArray(variableGradients))
      this.fusedStep(variableGradients);
    else super.applyGradients(variableGradients);
  }

  /**
   * AdamOptimizer.applyGradients (tfjs 4.x) with each variable's update done by one native
   * kernel: the same moment slots in the same order (so getWeights and checkpoints are
   * unchanged), and the same float32 arithmetic.
   */
  private fusedStep(grads: tf.NamedTensorMap, scale?: tf.Scalar): void {
    const state = this as unknown as AdamState;
    const constants = {
      learningRate: this.learningRate,
      beta1: state.beta1,
      beta2: state.beta2,
      epsilon: state.epsilon,
    };
    tf.tidy(() => {
      Object.keys(grads).forEach((name, i) => {
        const value = tf.engine().registeredVariables[name];
        if (value === undefined) return;
        const slot = (list: (MomentSlot | undefined)[], suffix: string): tf.Variable => {
          const existing = list[i];
          if (existing !== undefined) return existing.variable;
          const created = {
            originalName: `${name}/${suffix}`,
            variable: tf.tidy(() => tf.zerosLike(value).variable(false)),
          };
          list[i] = created;
          return created.variable;
        };
        const m = slot(state.accumulatedFirstMoment, 'm');
        const v = slot(state.accumulatedSecondMoment, 'v');
        const g = grads[name];
        if (g === undefined) return;
        const [w2, m2, v2] = adamStep(
          {
            w: value,
            g,
            m,
            v,
            accBeta1: state.accBeta1 as tf.Scalar,
            accBeta2: state.accBeta2 as tf.Scalar,
            ...(scale === undefined ? {} : { scale }),
          },
          constants,
        );
        m.assign(m2);
        v.assign(v2);
        value.assign(w2);
      });
      state.accBeta1.assign(tf.mul(state.accBeta1, state.beta1));
      state.accBeta2.assign(tf.mul(state.accBeta2, state.beta2));
    });
    state.incrementIterations();
  }

  /**
   * The moments of `variables` (the order the optimizer was stepped with) and the products: what
   * an optimizer outside tfjs (the GPU engine) continues from. A variable not stepped yet has zeros.
   */
  async moments(variables: readonly tf.Variable[]): Promise<{
    m: Float32Array[];
    v: Float32Array[];
    accBeta1: number;
    accBeta2: number;
  }> {
    const state = this as unknown as AdamState;
    const read = async (
      list: (MomentSlot | undefined)[],
      i: number,
      size: number,
    ): Promise<Float32Array> =>
      list[i] === undefined
        ? new Float32Array(size)
        : ((await list[i].variable.data()) as Float32Array);
    const m: Float32Array[] = [];
    const v: Float32Array[] = [];
    for (const [i, variable] of variables.entries()) {
      m.push(await read(state.accumulatedFirstMoment, i, variable.size));
      v.push(await read(state.accumulatedSecondMoment, i, variable.size));
    }
    return {
      m,
      v,
      accBeta1: ((await state.accBeta1.data()) as Float32Array)[0] as number,
      accBeta2: ((await state.accBeta2.data()) as Float32Array)[0] as number,
    };
  }

  /**
   * Takes over the state an optimizer outside tfjs reached after `steps` more steps: the moments of
   * `variables` (in the order of {@link moments}) and the products, so a checkpoint saves it.
   */
  setMoments(
    variables: readonly tf.Variable[],
    moments: { m: Float32Array[]; v: Float32Array[]; accBeta1: number; accBeta2: number },
    steps: number,
  ): void {
    const state = this as unknown as AdamState;
    tf.tidy(() => {
      variables.forEach((variable, i) => {
        const put = (
          list: (MomentSlot | undefined)[],
          suffix: string,
          values: Float32Array,
        ): void => {
          const tensor = tf.tensor(values, variable.shape);
          const existing = list[i];
          if (existing === undefined)
            list[i] = {
              originalName: `${variable.name}/${suffix}`,
              variable: tensor.variable(false),
            };
          else existing.variable.assign(tensor);
        };
        put(state.accumulatedFirstMoment, 'm', moments.m[i] as Float32Array);
        put(state.accumulatedSecondMoment, 'v', moments.v[i] as Float32Array);
      });
      state.accBeta1.assign(tf.scalar(moments.accBeta1));
      state.accBeta2.assign(tf.scalar(moments.accBeta2));
    });
    for (let s = 0; s < steps; s++) state.incrementIterations();
  }

  /** tfjs's state (iterations, moments), then the bias-correction products. */
  override async getWeights(): Promise<OptimizerWeight[]> {
    const products = this as unknown as AdamProducts;
    return [
      ...(await super.getWeights()),
      ...ACC_BETAS.map((name) => ({ name, tensor: products[name] })),
    ];
  }

  /** Restores what {@link getWeights} gave; without the products (older files), tfjs's rebuild. */
  override async setWeights(weights: OptimizerWeight[]): Promise<void> {
    const isProduct = (w: OptimizerWeight): boolean =>
      (ACC_BETAS as readonly string[]).includes(w.name);
    await super.setWeights(weights.filter((w) => !isProduct(w)));
    const saved = weights.filter(isProduct);
    this.restoredExactly = saved.length === ACC_BETAS.length;
    const products = this as unknown as AdamProducts;
    for (const { name, tensor } of saved)
      products[name as (typeof ACC_BETAS)[number]].assign(tensor);
  }
}

/**
 * Whether `optimizer` is a {@link ExactAdam}. Not `instanceof`: tfjs's Optimizer answers instanceof
 * by duck typing, true for any optimizer.
 */
export function isExactAdam(optimizer: tf.Optimizer): optimizer is ExactAdam {
  return Object.prototype.isPrototypeOf.call(ExactAdam.prototype, optimizer);
}

/**
 * Clips the gradients to a global norm of `maxNorm`
 * (every gradient scaled by min(1, maxNorm / ‖g‖)) and steps the optimizer.
 */
export function applyClippedGradients(
  optimizer: tf.Optimizer,
  grads: tf.NamedTensorMap,
  maxNorm: number,
): void {
  tf.tidy(() => {
    const norm = tf.sqrt(sumOfSquares(Object.values(grads)));
    const scale = tf.minimum<tf.Scalar>(1, tf.div(maxNorm, tf.add(norm, 1e-6)));
    if (isExactAdam(optimizer)) optimizer.applyScaledGradients(grads, scale);
    else {
      const clippedGrads: tf.NamedTensorMap = {};
      for (const [name, g] of Object.entries(grads)) clippedGrads[name] = tf.mul(g, scale);
      optimizer.applyGradients(clippedGrads);
    }
  });
}
