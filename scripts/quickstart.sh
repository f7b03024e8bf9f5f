#!/usr/bin/env bash
# Quick start: set up, compile the bundled example model (an int8 CNN for 8x8 digits) to C,
# build it with the host compiler and run it on four sample digits; then the same through CMake
# (examples/cmake_host, see docs/cmake.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh "$@"
export PATH="$PWD/.venv/bin:$PATH"
MODEL=examples/models/digits/digits_int8.tflite
utvm-build info "$MODEL"
for k in 0 1 2 3; do
  echo "== sample $k"
  utvm-build run "$MODEL" --input "examples/models/digits/sample_$k.npy"
done
echo "== CMake: examples/cmake_host"
cmake -S examples/cmake_host -B build/cmake_host -DPython3_EXECUTABLE="$PWD/.venv/bin/python" >/dev/null
cmake --build build/cmake_host
build/cmake_host/digits_host
