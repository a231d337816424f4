{
  # Headroom's native addon. Built with `npm run build:native` (node-gyp against the Node headers in
  # /usr, never downloaded). Node-API is ABI-stable, so one build loads in Node and in VS Code.
  "targets": [
    {
      "target_name": "headroom",
      "sources": [
        "src/addon.cc",
        "src/byte_source.cc",
        "src/buffers.cc",
        "src/pickle_reader.cc",
        "src/snapshot.cc",
        "src/decode_worker.cc",
        "src/allocator_settings.cc",
        "src/simulator.cc",
        "src/free_list.cc",
        "src/replay.cc",
        "src/reconstruct.cc",
        "src/snapshot_writer.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_DISABLE_CPP_EXCEPTIONS",
        "NODE_ADDON_API_DISABLE_DEPRECATED",
        # A promise settled while a worker thread is being terminated cannot throw; without this
        # node-addon-api turns that into a fatal error.
        "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"
      ],
      # The decoder reports bad input by throwing C++ exceptions that never leave the worker thread
      # (DecodeWorker::Execute catches them), so exceptions are on in our code while node-addon-api
      # itself stays in its no-exceptions mode.
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++20"],
      # zlib decompresses .pickle.gz snapshots while they stream from disk.
      "libraries": ["-lz", "-pthread"],
      "cflags": ["-fvisibility=hidden", "-Wall", "-Wextra"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-fvisibility=hidden", "-Wall", "-Wextra"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17"
      },
      "msvs_settings": {
        "VCCLCompilerTool": { "ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"] }
      }
    }
  ]
}
