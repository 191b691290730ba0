#!/bin/bash
# The whole GPU check as one device-tool call (a lease is 15 minutes, all
# tries together, so everything runs in one command with its own limits).
#
# Here:   PYTHONPATH=build/python /usr/bin/python3 bench/gpu/build.py
# There:  carry=["build/gpu-artifacts"], timeout_s=540,
#         command "bash bench/gpu/device_check.sh"
# When build.py split the cases into parts (more than a call carries), one
# call per part: carry=["build/gpu-artifacts/part0"], command
# "ART=build/gpu-artifacts/part0 bash bench/gpu/device_check.sh"; NCU=0
# skips the Nsight Compute step.
#
# Writes to $OUT (at most 8 files come back): env.txt (the GPU, driver,
# torch), gpu.md (run.sh's table), gpu.md.progress, run.log, memcheck.log,
# ncu.txt, torch.txt (torch_baselines.py).
# BENCH_LIMIT and SANITIZER_LIMIT (seconds) bound the two parts; RUN_ARGS
# go to run.py (e.g. "--kernels 12" for each model's slowest kernels);
# ODD replaces the list of cases memcheck runs.
set -u
O=${OUT:-/tmp/traced-gpu-out}
# Every step runs; the script exits non-zero when any of them failed.
failed=""
mkdir -p "$O"
cd "$(dirname "$0")/../.."
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c 'import sys, numpy, torch; print(sys.version.split()[0], "numpy", numpy.__version__, "torch", torch.__version__, "cuda", torch.cuda.is_available())'
  command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer
  nproc
} >"$O/env.txt" 2>&1
cat "$O/env.txt"

# 1. Every case: outputs against the interpreter (or torch/numpy for the
#    matmuls), medians of 100 calls, torch eager beside them, the C loader.
CASE_TIMEOUT=${CASE_TIMEOUT:-45} timeout "${BENCH_LIMIT:-300}" \
  sh bench/gpu/run.sh "$O/gpu.md" ${RUN_ARGS:-} 2>&1 | tee "$O/run.log"
status=${PIPESTATUS[0]}
echo "run.sh: exit $status" | tee -a "$O/run.log"
[ "$status" = 0 ] || failed="$failed run.sh($status)"

# 2. compute-sanitizer memcheck on the shapes off the kernels' tiles (edges,
#    K tails, the TMA and mma.sync variants), one call each, without torch;
#    run.py also makes each model call as a CUDA graph there.
ODD=${ODD:-"odd_matmul odd_bmm conv_dilated conv_split_k padded_block simple_module mlp
     odd_matmul_unfused conv_dilated_unfused conv_split_k_unfused padded_block_unfused mlp_unfused
     softmax log_softmax_odd layer_norm sum_all amax_dim0 amin_rows mean_hw prod_rows
     amax_all_odd sum_rows_long
     logsumexp argmax_rows int_sum_rows
     matmul_bfloat16_odd matmul_bfloat16_bmm_odd
     matmul_bfloat16_odd_mma_sync matmul_bfloat16_odd_cp_async matmul_bfloat16_odd_m128_n256
     matmul_bfloat16_bmm_odd_mma_sync matmul_bfloat16_bmm_odd_cp_async matmul_bfloat16_bmm_odd_m128_n256
     conv_bf16_odd conv_bf16_odd_unfused conv_bf16_split_k conv_bf16_split_k_unfused
     bottleneck_bf16 bottleneck_bf16_unfused conv_256_tf32
     softmax_norows log_softmax_odd_norows layer_norm_norows
     rms_norm rms_norm_norows layer_norm_3d layer_norm_3d_norows
     logsumexp_norows bf16_linear_block"}
TRACED_GPU_NO_TORCH=1 PYTHONUNBUFFERED=1 timeout "${SANITIZER_LIMIT:-100}" \
  compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
  python3 bench/gpu/run.py "${ART:-build/gpu-artifacts}" --runs 1 $ODD 2>&1 | tee "$O/memcheck.log" | tail -40
status=${PIPESTATUS[0]}
echo "memcheck: exit $status" | tee -a "$O/memcheck.log"
[ "$status" = 0 ] || failed="$failed memcheck($status)"

# 3. Nsight Compute on the bfloat16 products (TMA, the default, and every
#    thread copying): speed
#    of light and warp stalls, one launch each (--clock-control none: leave
#    the clocks as they are).
# (NCU=0 skips this step.)
if [ "${NCU:-1}" != 0 ]; then
for c in matmul_bfloat16_4096 matmul_bfloat16_4096_cp_async; do
  TRACED_GPU_NO_TORCH=1 timeout "${NCU_LIMIT:-45}" ncu --clock-control none \
    -k regex:_mma_ -c 1 --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis \
    python3 bench/gpu/run.py "${ART:-build/gpu-artifacts}" --runs 1 $c >>"$O/ncu.txt" 2>&1
  status=$?
  echo "ncu $c: exit $status" >>"$O/ncu.txt"
  [ "$status" = 0 ] || failed="$failed ncu-$c($status)"
done
grep -E "exit|Duration|Throughput|Stall|ncu" "$O/ncu.txt" | head -40
fi

# 4. torch's own figures for the GPU issue's models (resnet50 and a
#    BERT-base encoder in bfloat16 at batch 32, GPT-2 small decode):
#    bench/gpu/torch_baselines.py, into torch.txt. BASELINES=0 skips it;
#    BASELINES=compile adds torch.compile.
if [ "${BASELINES:-1}" != 0 ]; then
  flags=""
  [ "${BASELINES:-1}" = compile ] && flags="--compile"
  PYTHONUNBUFFERED=1 timeout "${BASELINES_LIMIT:-180}" \
    python3 bench/gpu/torch_baselines.py $flags --deadline "${BASELINES_DEADLINE:-120}" \
    2>&1 | tee "$O/torch.txt"
  status=${PIPESTATUS[0]}
  echo "torch_baselines: exit $status" | tee -a "$O/torch.txt"
  [ "$status" = 0 ] || failed="$failed torch_baselines($status)"
fi
if [ -n "$failed" ]; then
  echo "device_check: failed:$failed"
  exit 1
fi
echo "device_check: every step passed"
