#!/bin/sh
# Runs the compiled GPU cases on a GPU machine: checks them against the CPU
# interpreter's outputs and times them against torch CUDA (docs/gpu.md).
#
# Here (with LLVM/MLIR and the CUDA toolkit):
#   PYTHONPATH=build/python /usr/bin/python3 bench/gpu/build.py
# On the GPU machine (numpy and the CUDA driver; torch for the comparison),
# from the repository root with build/gpu-artifacts carried over:
#   sh bench/gpu/run.sh [out.md] [case...]
# With the device tool: carry=["build/gpu-artifacts"], command
#   sh bench/gpu/run.sh $OUT/gpu.md
set -e
ART=${ART:-build/gpu-artifacts}
if [ ! -f "$ART/manifest.json" ]; then
  echo "no $ART/manifest.json: run bench/gpu/build.py first (on a machine with LLVM)" >&2
  exit 2
fi
OUTFILE=${1:-gpu-results.md}
[ $# -gt 0 ] && shift
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
PYTHONUNBUFFERED=1 exec python3 "$(dirname "$0")/run.py" "$ART" --runs "${RUNS:-100}" --out "$OUTFILE" "$@"
