#!/bin/sh
# Runs the compiled GPU models on a GPU machine and compares them with the
# CPU interpreter's outputs and torch CUDA (docs/gpu.md).
#
# Here (with LLVM/MLIR and the CUDA toolkit):
#   PYTHONPATH=build/python /usr/bin/python3 bench/gpu/build.py
# On the GPU machine (numpy, the CUDA driver; torch for the comparison),
# from the repository root with build/gpu-artifacts carried over:
#   sh bench/gpu/run.sh
set -e
ART=${1:-build/gpu-artifacts}
if [ ! -f "$ART/manifest.json" ]; then
  echo "no $ART/manifest.json: run bench/gpu/build.py first (on a machine with LLVM)" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
exec python3 "$(dirname "$0")/run.py" "$ART" --runs "${RUNS:-20}"
