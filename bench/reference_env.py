"""The PyTorch references' process: OpenBLAS at full speed, and which kernels it ran.

Some machines set OPENBLAS_CORETYPE (or OPENBLAS_L2_SIZE) for every process, and OpenBLAS then
runs the kernels of that core, not this CPU's: on an AVX-512 EPYC with Prescott it ran SSE3-era
kernels at a third of the speed. A reference that inherits that is no reference. So a reference
script calls full_speed_openblas() before importing torch: when either variable is set, it runs
itself again without them (for its own process only) and says so; blas_kernels() then names the
BLAS torch was built with and the kernels OpenBLAS chose.
"""
import ctypes
import os
import sys

HANDICAPS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
CLEARED = "TRADELAB_REFERENCE_CLEARED"


def full_speed_openblas():
    """Re-executes this script without HANDICAPS when one is set (call before importing torch).

    Also gives OpenBLAS the script's --threads (default 1): torch.set_num_threads does not reach
    the pool of a torch built on OpenBLAS, which would otherwise take every core and turn a
    one-thread reference into a whole-machine one.
    """
    threads = "1"
    for i, arg in enumerate(sys.argv):
        if arg == "--threads" and i + 1 < len(sys.argv):
            threads = sys.argv[i + 1]
        elif arg.startswith("--threads="):
            threads = arg.split("=", 1)[1]
    os.environ.setdefault("OPENBLAS_NUM_THREADS", threads)
    set_here = [f"{name}={os.environ[name]}" for name in HANDICAPS if name in os.environ]
    if not set_here:
        return
    env = {k: v for k, v in os.environ.items() if k not in HANDICAPS}
    env[CLEARED] = " ".join(set_here)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def blas_kernels():
    """What BLAS ran the products: {library, core, config, cleared}; fields unknown are None."""
    info = {"library": None, "core": None, "config": None, "cleared": os.environ.get(CLEARED)}
    try:
        import torch

        for line in torch.__config__.show().splitlines():
            line = line.strip()
            if line.startswith("- BLAS_INFO=") or line.startswith("BLAS_INFO="):
                info["library"] = line.split("=", 1)[1]
    except Exception:  # an old torch without __config__: the library stays unknown
        pass
    for path in _loaded_libraries():
        if "openblas" not in os.path.basename(path):
            continue
        lib = ctypes.CDLL(path)
        for field, symbol in (("core", "openblas_get_corename"), ("config", "openblas_get_config")):
            function = getattr(lib, symbol, None)
            if function is not None:
                function.restype = ctypes.c_char_p
                info[field] = function().decode()
        info["library"] = info["library"] or "openblas"
        break
    return info


def describe(info):
    """One phrase for a bench's name: the kernels, and what was cleared to get them."""
    kernels = (
        f"OpenBLAS {info['core']} kernels" if info["core"] else f"BLAS {info['library'] or 'unknown'}"
    )
    cleared = f", {info['cleared']} cleared for this process" if info["cleared"] else ""
    return kernels + cleared


def _loaded_libraries():
    try:
        with open("/proc/self/maps") as maps:
            return sorted({line.split()[-1] for line in maps if ".so" in line})
    except OSError:  # not Linux: nothing to read the kernels from
        return []
