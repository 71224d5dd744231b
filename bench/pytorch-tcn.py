#!/usr/bin/env python3
"""PyTorch's time for tradelab's TCN training step, on the same shapes, for the ratio.

The reference that `tradelab bench tcn` is judged against (issue 17: >= 1.0x PyTorch's timesteps/s
on the CPU, one thread). It builds what src/models/tcn.ts builds: residual blocks of two dilated
causal convolutions (left padding only, dilation 2^i), weight normalization, ReLU and dropout
after each, a 1x1 convolution on the residual where the width changes, the last step as the chunk's
encoding, a dense + ReLU + dense head; then times forward + MSE loss + backward + Adam on random
chunks, one thread unless --threads says otherwise.

    /usr/bin/python3 bench/pytorch-tcn.py --layers 6 --hidden 64 --kernel 3 --seq 512 --batch 32 --features 8
    /usr/bin/python3 bench/pytorch-tcn.py --checkpoint          # torch.utils.checkpoint per block
    /usr/bin/python3 bench/pytorch-tcn.py --device cuda --layers 12 --hidden 512

Prints one line per figure and, with --json, one JSON object. Needs PyTorch (Debian:
python3-torch); not part of tradelab or its tests.
"""
import argparse
import json
import statistics
import time

from reference_env import blas_kernels, describe, full_speed_openblas

full_speed_openblas()  # before torch loads OpenBLAS: its kernels for this CPU, not a set core's

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.utils import weight_norm
from torch.utils.checkpoint import checkpoint


class CausalConv(nn.Module):
    def __init__(self, cin, cout, k, d):
        super().__init__()
        self.pad = (k - 1) * d
        self.conv = weight_norm(nn.Conv1d(cin, cout, k, dilation=d))

    def forward(self, x):
        return self.conv(nn.functional.pad(x, (self.pad, 0)))


class Block(nn.Module):
    def __init__(self, cin, cout, k, d, dropout):
        super().__init__()
        self.conv1 = CausalConv(cin, cout, k, d)
        self.conv2 = CausalConv(cout, cout, k, d)
        self.drop = nn.Dropout(dropout)
        self.residual = nn.Conv1d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        h = self.drop(torch.relu(self.conv1(x)))
        h = self.drop(torch.relu(self.conv2(h)))
        r = x if self.residual is None else self.residual(x)
        return torch.relu(h + r)


class Tcn(nn.Module):
    def __init__(self, features, hidden, layers, k, dropout, use_checkpoint):
        super().__init__()
        self.blocks = nn.ModuleList(
            Block(features if i == 0 else hidden, hidden, k, 2**i, dropout) for i in range(layers)
        )
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.use_checkpoint = use_checkpoint

    def forward(self, x):  # x: [batch, features, time]
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.use_checkpoint else block(x)
        return self.head(x[:, :, -1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--kernel", type=int, default=3)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--features", type=int, default=8)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--checkpoint", action="store_true")
    p.add_argument("--device", default="cpu")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    dev = torch.device(a.device)
    model = Tcn(a.features, a.hidden, a.layers, a.kernel, a.dropout, a.checkpoint).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, a.features, a.seq, device=dev)
    y = torch.randn(a.batch, 1, device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    for _ in range(2):
        step()
    sync()
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        for _ in range(a.steps):
            step()
        sync()
        times.append((time.perf_counter() - t0) / a.steps)
    s = statistics.median(times)
    params = sum(q.numel() for q in model.parameters())
    result = {
        # The fields tradelab's bench results share (the GPU bundle's results.mjs prints them).
        "name": f"PyTorch {torch.__version__} TCN train step on {a.device}, {a.batch} chunks x {a.seq} bars, "
        f"checkpointing {'on' if a.checkpoint else 'off'} ({a.layers}x{a.hidden}, k {a.kernel}, {a.features} features)",
        "rate": a.batch * a.seq / s,
        "unit": "timesteps/s",
        "runs": times,
        # On CUDA, cuDNN's convolutions use TF32 tensor cores unless told not to (PyTorch's default).
        "reference": f"PyTorch {torch.__version__} {a.device}, {a.threads} thread(s)"
        + (f", cuDNN TF32 {'on' if torch.backends.cudnn.allow_tf32 else 'off'}" if dev.type == "cuda" else ""),
        "layers": a.layers,
        "hidden": a.hidden,
        "kernel": a.kernel,
        "seq": a.seq,
        "batch": a.batch,
        "features": a.features,
        "checkpoint": a.checkpoint,
        "params": params,
        "secondsPerStep": s,
        "itPerSecond": 1 / s,
        "samplesPerSecond": a.batch / s,
        "timestepsPerSecond": a.batch * a.seq / s,
    }
    blas = blas_kernels()
    result["blas"] = blas
    if dev.type == "cpu":
        result["reference"] += f", {describe(blas)}"
    if a.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
