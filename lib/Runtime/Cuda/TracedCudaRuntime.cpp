//===- TracedCudaRuntime.cpp - the mgpu* entry points over the driver API -===//
//
// `gpu-to-llvm` lowers host-side GPU ops to calls of `mgpu*` functions, and
// the GPU binary's module-load constructor calls `mgpuModuleLoad[JIT]`.
// Debian's MLIR ships no library implementing them, so compiled models link
// this one: a small shared library over the CUDA driver API (libcuda), with
// no LLVM or MLIR dependency, meant to be carried to a GPU machine next to
// the model's library.
//
// Errors abort with a message naming the failing call: a model library has
// no way to return them, and continuing after a failed launch would return
// garbage.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#define TRACED_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

void check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "traced CUDA runtime: %s failed: %s (%s)\n", what,
               name ? name : "?", text ? text : "?");
  std::abort();
}

int defaultDevice = 0;

/// Makes the primary context of the default device current on this thread
/// (initializing the driver on first use).
void ensureContext() {
  static std::once_flag init;
  static CUcontext context = nullptr;
  std::call_once(init, [] {
    check(cuInit(0), "cuInit");
    CUdevice device;
    check(cuDeviceGet(&device, defaultDevice), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&context, device),
          "cuDevicePrimaryCtxRetain");
  });
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

} // namespace

TRACED_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}

TRACED_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  ensureContext();
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

TRACED_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  ensureContext();
  CUmodule module = nullptr;
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS)
    std::fprintf(stderr, "traced CUDA runtime: PTX JIT log:\n%s\n", log);
  check(result, "cuModuleLoadDataEx (PTX JIT)");
  return module;
}

TRACED_EXPORT void mgpuModuleUnload(CUmodule module) {
  check(cuModuleUnload(module), "cuModuleUnload");
}

TRACED_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                               const char *name) {
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, module, name), "cuModuleGetFunction");
  return function;
}

TRACED_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                    intptr_t gridY, intptr_t gridZ,
                                    intptr_t blockX, intptr_t blockY,
                                    intptr_t blockZ, int32_t smem,
                                    CUstream stream, void **params,
                                    void **extra, size_t /*paramsCount*/) {
  ensureContext();
  check(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                       smem, stream, params, extra),
        "cuLaunchKernel");
}

TRACED_EXPORT CUstream mgpuStreamCreate() {
  ensureContext();
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return stream;
}

TRACED_EXPORT void mgpuStreamDestroy(CUstream stream) {
  check(cuStreamDestroy(stream), "cuStreamDestroy");
}

TRACED_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  check(cuStreamSynchronize(stream), "cuStreamSynchronize");
}

TRACED_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  check(cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

TRACED_EXPORT CUevent mgpuEventCreate() {
  ensureContext();
  CUevent event = nullptr;
  check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

TRACED_EXPORT void mgpuEventDestroy(CUevent event) {
  check(cuEventDestroy(event), "cuEventDestroy");
}

TRACED_EXPORT void mgpuEventSynchronize(CUevent event) {
  check(cuEventSynchronize(event), "cuEventSynchronize");
}

TRACED_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  check(cuEventRecord(event, stream), "cuEventRecord");
}

/// Device memory, or managed memory (visible to host and device) when
/// `isHostShared`; compiled models keep every buffer the kernels touch in
/// managed memory (docs/gpu.md).
TRACED_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                                 bool isHostShared) {
  ensureContext();
  if (sizeBytes == 0)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (isHostShared)
    check(cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged");
  else
    check(cuMemAlloc(&ptr, sizeBytes), "cuMemAlloc");
  return reinterpret_cast<void *>(ptr);
}

TRACED_EXPORT void mgpuMemFree(void *ptr, CUstream stream) {
  if (!ptr)
    return;
  if (stream)
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  check(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

TRACED_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                              CUstream stream) {
  check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream),
        "cuMemcpyAsync");
}

TRACED_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                CUstream stream) {
  check(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream),
        "cuMemsetD32Async");
}

TRACED_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                CUstream stream) {
  check(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream),
        "cuMemsetD16Async");
}

TRACED_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  ensureContext();
  check(cuMemHostRegister(ptr, sizeBytes, CU_MEMHOSTREGISTER_PORTABLE),
        "cuMemHostRegister");
}

TRACED_EXPORT void mgpuMemHostUnregister(void *ptr) {
  check(cuMemHostUnregister(ptr), "cuMemHostUnregister");
}
