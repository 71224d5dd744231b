#!/usr/bin/env python3
"""PyTorch's time for tradelab's PPO minibatch update, on the same shapes, for the ratio.

The reference that `tradelab bench ppo-update` is judged against (issue: the update at >= 1.5x
PyTorch CPU per core). It builds what src/agents/ppo-update.ts builds: a Gaussian actor (MLP with
ReLU hidden layers, tanh mean, a state-independent log-std) and an MLP critic, the clipped
surrogate, the value loss (coefficient 0.5), the entropy bonus (0.01), minibatch advantage
normalization, gradients clipped to a global norm of 0.5, and Adam (eps 1e-5); then times
forward + backward + step on random minibatches, one thread unless --threads says otherwise.
With --device cuda, on the GPU (the reference for tradelab's webgpu row; the GPU bundle,
scripts/gpu-bundle.sh, runs it there): the networks and the minibatch live on the GPU, and the
clock is read only after torch.cuda.synchronize(), so queued work is counted.

    python3 bench/pytorch-ppo-update.py --state 64 --net-dim 512 --actions 4 --batch 4096
    python3 bench/pytorch-ppo-update.py --preset finrl          # 81 -> 512 -> 512, batch 2048
    python3 bench/pytorch-ppo-update.py --device cuda

Prints one line per figure and, with --json, one JSON object. Needs PyTorch (Debian:
python3-torch); not part of tradelab or its tests.
"""
import argparse
import json
import math
import os
import statistics
import time

from reference_env import blas_kernels, describe, full_speed_openblas

full_speed_openblas()  # before torch loads OpenBLAS: its kernels for this CPU, not a set core's

import torch  # noqa: E402
from torch import nn  # noqa: E402

PRESETS = {"finrl": {"state": 81, "net_dim": 512, "actions": 10, "batch": 2048}}


def mlp(inputs, hidden, layers, outputs):
    sizes = [inputs] + [hidden] * layers
    parts = []
    for a, b in zip(sizes, sizes[1:]):
        parts += [nn.Linear(a, b), nn.ReLU()]
    parts.append(nn.Linear(sizes[-1], outputs))
    return nn.Sequential(*parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS))
    parser.add_argument("--state", type=int, default=64)
    parser.add_argument("--net-dim", type=int, default=512)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--actions", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--updates", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.preset:
        for key, value in PRESETS[args.preset].items():
            setattr(args, key, value)
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: PyTorch sees no CUDA device (torch.cuda.is_available() is False)")
    device = torch.device(args.device)
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)

    actor = mlp(args.state, args.net_dim, args.layers, args.actions).to(device)
    critic = mlp(args.state, args.net_dim, args.layers, 1).to(device)
    log_std = nn.Parameter(torch.full((args.actions,), -0.5, device=device))
    params = list(actor.parameters()) + [log_std] + list(critic.parameters())
    optimizer = torch.optim.Adam(params, lr=3e-4, eps=1e-5)

    g = torch.Generator().manual_seed(2)
    states = torch.randn(args.batch, args.state, generator=g).to(device)
    actions = torch.randn(args.batch, args.actions, generator=g).to(device)
    old_log_probs = (torch.randn(args.batch, generator=g) * 0.1 - 4).to(device)
    advantages = torch.randn(args.batch, generator=g).to(device)
    returns = torch.randn(args.batch, generator=g).to(device)
    log_sqrt_2pi = 0.5 * math.log(2 * math.pi)

    def update():
        mean = torch.tanh(actor(states))
        z = (actions - mean) / log_std.exp()
        log_prob = (-0.5 * z.pow(2) - (log_std + log_sqrt_2pi)).sum(1)
        log_ratio = log_prob - old_log_probs
        ratio = log_ratio.exp()
        adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        surrogate = torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
        policy_loss = -surrogate.mean()
        values = critic(states).view(-1)
        value_loss = (values - returns).pow(2).mean()
        entropy = (log_std + 0.5 + log_sqrt_2pi).sum()
        loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(params, 0.5)
        optimizer.step()
        with torch.no_grad():  # the diagnostics tradelab computes too
            approx_kl = ((ratio - 1) - log_ratio).mean()
            clip_fraction = ((ratio - 1).abs() > 0.2).float().mean()
        return torch.stack([policy_loss.detach(), value_loss.detach(), entropy.detach(), approx_kl, clip_fraction])

    def synchronize():  # a GPU runs what it is given later: wait for it before reading the clock
        if device.type == "cuda":
            torch.cuda.synchronize()

    for _ in range(args.updates):  # warm-up
        update()
    synchronize()
    runs = []
    cpu_runs = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        cpu_started = time.process_time()
        for _ in range(args.updates):
            update().tolist()
        synchronize()
        runs.append(time.perf_counter() - started)
        cpu_runs.append(time.process_time() - cpu_started)
    seconds = statistics.median(runs)
    rate = args.batch * args.updates / seconds
    # CPU seconds too: on a shared machine they move less with the load than wall time does.
    cpu_rate = args.batch * args.updates / statistics.median(cpu_runs)
    blas = blas_kernels()
    where = (
        f"CUDA on {torch.cuda.get_device_name(device)}"
        if device.type == "cuda"
        else f"CPU, {args.threads} thread(s), {describe(blas)}"
    )
    name = (
        f"PPO update, PyTorch {torch.__version__} {where} "
        f"(state {args.state}, netDim {args.net_dim}, actions {args.actions}, batch {args.batch})"
    )
    if args.json:
        print(json.dumps({"bench": "ppo-update", "name": name, "items": args.batch * args.updates,
                          "seconds": seconds, "runs": runs, "rate": rate, "unit": "samples/s",
                          "cpuRate": cpu_rate,
                          "device": args.device, "blas": blas,
                          "machine": {"cpus": os.cpu_count(), "loadAverage": os.getloadavg()[0]}}))
    else:
        print(f"{name}: {rate:,.0f} samples/s, {cpu_rate:,.0f} per CPU second (median of "
              f"{args.repeat} runs: {' '.join(f'{r:.3f}' for r in runs)} s)")


if __name__ == "__main__":
    main()
