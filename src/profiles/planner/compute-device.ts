import type { GpuProfile } from '../profile-schema.js';

/*
 * Where a workload's workers compute decides what limits them, and it is the backend's choice, not
 * the profile's: backend auto trains on the CPU wherever the native GEMM is built, on GPU profiles
 * too (docs/compute.md § WebGPU). On the card (webgpu on a GPU profile) the limits are its VRAM
 * and the profile's figures for it: how many workers it runs at once (`maxWorkers`), the memory of
 * one forecasting model. On the host (wasm, cpu) they are the CPU cores, the RAM and a wasm heap's
 * 4 GiB; a card's figures say nothing about those, so they are not charged there.
 */

/** A compute backend the planner can plan for (`auto` already resolved). */
export type PlanBackend = 'wasm' | 'webgpu' | 'cpu';

/** What the workers compute on: the card, or the host's CPU cores and RAM. */
export type ComputeDevice = 'gpu' | 'host';

/** The device `backend` computes on with `profile`: the card only for webgpu on a GPU profile. */
export function computeDevice(profile: GpuProfile, backend: PlanBackend): ComputeDevice {
  return backend === 'webgpu' && profile.vendor !== 'cpu' ? 'gpu' : 'host';
}
