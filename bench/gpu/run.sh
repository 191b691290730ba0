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
status=0
# Each case gets CASE_TIMEOUT seconds (a deadlocked kernel must not spend
# the lease); after a timeout (run.py's status 3) the run starts again with
# the cases not yet started, and each run's table is appended to $OUTFILE.
PROGRESS="$OUTFILE.progress"
rm -f "$PROGRESS"
: >"$OUTFILE"
while :; do
  part=$(mktemp)
  rc=0
  PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/run.py" "$ART" --runs "${RUNS:-100}" \
    --out "$part" --case-timeout "${CASE_TIMEOUT:-60}" --progress "$PROGRESS" "$@" || rc=$?
  cat "$part" >>"$OUTFILE"
  rm -f "$part"
  [ $rc -eq 3 ] || break
  status=3
done
[ $rc -eq 0 ] || status=$rc

# The AOT artifact through the C loader (no Python in the call path):
# resnet18 at batch 1 against the interpreter's output.
if [ -x "$ART/traced-gpu-run" ] && [ -f "$ART/libresnet18.so.xz" ]; then
  W=$(mktemp -d)
  unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
  cp "$ART/libtraced_cuda_runtime.so" "$W/"
  unxz "$ART/libresnet18.so.xz" "$W/libresnet18.so"
  unxz "$ART/resnet18_input0.npy.xz" "$W/in.npy"
  "$ART/traced-gpu-run" "$W/libresnet18.so" "$W/out.npy" "$W/in.npy" --runs 100 | tee -a "$OUTFILE" || status=1
  python3 - "$W/out.npy" "$ART/resnet18_interpreter.npy" <<'PY' | tee -a "$OUTFILE" || status=1
import sys
import numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
err = float(np.abs(got - want).max() / np.abs(want).max())
print(f"C loader, resnet18: max error / max abs {err:.1e} against the interpreter")
sys.exit(0 if err <= 1e-4 else 1)
PY
fi
exit $status
