import type { GpuProfile, Workload } from '../profile-schema.js';

/*
 * Where a workload's workers compute decides what limits them, and it is the backend's choice, not
 * the profile's. On the card (tfjs's webgpu on a GPU profile; tradelab's engine `gpu` for PPO's
 * update and the TCN's steps, whose networks, gradients, Adam state and activations live there)
 * the limits are its VRAM and the profile's figures for it: how many workers it runs at once
 * (`maxWorkers`), the memory of one forecasting model. On the host (wasm, cpu, and the engine for a
 * forecasting set of window MLPs, which it does not train) they are the CPU cores, the RAM and a
 * wasm heap's 4 GiB; a card's figures say nothing about those, so they are not charged there.
 */

/** A compute backend the planner can plan for (`auto` already resolved). */
export type PlanBackend = 'wasm' | 'gpu' | 'webgpu' | 'cpu';

/** What the workers compute on: the card, or the host's CPU cores and RAM. */
export type ComputeDevice = 'gpu' | 'host';

/**
 * The device `backend` computes `workload` on with `profile`: the card for webgpu on a GPU
 * profile, and for the engine's PPO and TCN; the host otherwise. `modelKind` is the forecasting
 * set's model (default the TCN): the engine trains a TCN, not a window MLP (`params`).
 */
export function computeDevice(
  profile: GpuProfile,
  backend: PlanBackend,
  workload: Workload,
  modelKind: 'mlp' | 'tcn' | 'params' = 'tcn',
): ComputeDevice {
  if (profile.vendor === 'cpu') return 'host';
  if (backend === 'webgpu') return 'gpu';
  if (backend !== 'gpu') return 'host';
  return workload !== 'forecast' || modelKind === 'tcn' ? 'gpu' : 'host';
}
