/**
 * Sizes of the PPO actor-critic MLP pair (ElegantRL/FinRL shape): each network has `layers` hidden
 * layers of `netDim` units; the actor ends in `actDim` means plus a learned log-std per action, the
 * critic in one value.
 */
export interface MlpShape {
  obsDim: number;
  actDim: number;
  netDim: number;
  /** Hidden layers per network. */
  layers: number;
}

/** Parameters of actor and critic together. */
export function mlpParamCount({ obsDim, actDim, netDim: n, layers }: MlpShape): number {
  const hidden = obsDim * n + n + (layers - 1) * (n * n + n);
  const actor = hidden + n * actDim + actDim + actDim;
  const critic = hidden + n + 1;
  return actor + critic;
}

/** Units whose outputs one forward pass of actor and critic produces, per sample (input excluded). */
export function mlpUnitsPerSample({ actDim, netDim, layers }: MlpShape): number {
  return 2 * layers * netDim + actDim + 1;
}

/**
 * Elements kept per training sample: every layer output is saved for backpropagation and its
 * gradient exists alongside it during the backward pass (×2), plus the observation itself.
 */
export function mlpTrainingElementsPerSample(shape: MlpShape): number {
  return 2 * mlpUnitsPerSample(shape) + shape.obsDim;
}
