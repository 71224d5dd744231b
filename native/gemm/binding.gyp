# tradelab's optional native GEMM (see gemm.c). Built by scripts/build-native.mjs at npm install;
# when it cannot be built, tradelab uses the wasm backend's XNNPACK instead.
{
  "targets": [
    {
      "target_name": "tradelab_gemm",
      "sources": ["gemm.c"],
      "cflags": ["-O2", "-std=c11", "-Wall", "-Wextra"],
      "defines": ["NAPI_VERSION=8"],
      "conditions": [
        ["OS=='mac'", {
          "libraries": ["-framework Accelerate"],
          "xcode_settings": {"OTHER_CFLAGS": ["-O2", "-std=c11"]}
        }],
        ["OS!='mac' and OS!='win'", {
          "libraries": ["-lopenblas"]
        }]
      ]
    }
  ]
}
