# tradelab's native GEMM (see addon.c and sgemm.h). Built by scripts/build-native.mjs at npm
# install with a C compiler and nothing else: its kernels are our own, chosen at run time by CPU,
# and a system BLAS, when one is there, is opened at run time (dlopen), not linked. When it cannot
# be built, tradelab uses the wasm backend's XNNPACK instead.
{
  "targets": [
    {
      "target_name": "tradelab_gemm",
      "sources": [
        "addon.c",
        "sgemm.c",
        "kernels-x86.c",
        "kernels-neon.c",
        "kernels-generic.c",
        "thread-pool.c",
        "blas.c",
        "training-kernels.c",
        "attention.c",
        "layer-norm.c",
        "token-kernels.c"
      ],
      "cflags": ["-O3", "-std=c11", "-fno-math-errno", "-Wall", "-Wextra"],
      "cflags!": ["-O2"],
      "defines": ["NAPI_VERSION=8", "_POSIX_C_SOURCE=200809L"],
      "conditions": [
        ["OS=='mac'", {
          "xcode_settings": {"OTHER_CFLAGS": ["-O3", "-std=c11"], "GCC_OPTIMIZATION_LEVEL": "3"}
        }],
        ["OS!='mac' and OS!='win'", {
          "libraries": ["-ldl", "-lpthread"]
        }]
      ]
    }
  ]
}
