import type { GpuProfile, Workload } from '../profile-schema.js';

/*
 * Where a workload's workers compute decides what limits them, and it is the backend's choice, not
 * the profile's. On the card (tfjs's webgpu on a GPU profile, and tradelab's engine `gpu` for PPO,
 * whose update, its networks, gradients, Adam state and activations live there) the limits are
 * its VRAM and the profile's figures for it: how many workers it runs at once (`maxWorkers`), the
 * memory of one forecasting model. On the host (wasm, cpu, and the engine for the TCN workloads,
 * which it does not train yet) they are the CPU cores, the RAM and a wasm heap's 4 GiB; a card's
 * figures say nothing about those, so they are not charged there.
 */

/** A compute backend the planner can plan for (`auto` already resolved). */
export type PlanBackend = 'wasm' | 'gpu' | 'webgpu' | 'cpu';

/** What the workers compute on: the card, or the host's CPU cores and RAM. */
export type ComputeDevice = 'gpu' | 'host';

/**
 * The device `backend` computes `workload` on with `profile`: the card for webgpu on a GPU
 * profile, and for the engine's PPO (`drl`); the host otherwise.
 */
export function computeDevice(
  profile: GpuProfile,
  backend: PlanBackend,
  workload: Workload,
): ComputeDevice {
  if (profile.vendor === 'cpu') return 'host';
  if (backend === 'webgpu') return 'gpu';
  return backend === 'gpu' && workload === 'drl' ? 'gpu' : 'host';
}
