//===- TracedCudaRuntime.cpp - the mgpu* entry points over the driver API -===//
//
// `gpu-to-llvm` lowers host-side GPU ops to calls of `mgpu*` functions, and
// the GPU binary's module-load constructor calls `mgpuModuleLoad[JIT]`.
// Debian's MLIR ships no library implementing them, so compiled models link
// this one: a small shared library over the CUDA driver API (libcuda), with
// no LLVM or MLIR dependency, meant to be carried to a GPU machine next to
// the model's library.
//
// What it adds to a plain mapping onto the driver (docs/gpu.md):
//  - device memory only (cuMemAlloc; a request for managed memory is an
//    error), through a caching allocator: blocks freed on a stream are
//    reused by later allocations of the same size on that stream, and by
//    any stream once it has been synchronized;
//  - resident constants: `traced_gpu_resident` uploads a weight on first
//    use and returns the same device copy afterwards;
//  - arguments in place: `traced_gpu_in_place` tells the compiled function
//    that an argument is device memory its kernels can use directly (torch
//    CUDA tensors), so it skips the copy in or out;
//  - TMA tensor maps (`traced_gpu_tensor_map`), encoded on the host and
//    kept in device memory, one per distinct buffer and shape;
//  - streams from a pool, so a call does not create and destroy one; or
//    the caller's stream (`traced_gpu_set_stream`, torch's current stream
//    when called from torch): the call's work is queued there, ordered
//    after the caller's earlier work and before its later work, and the
//    call returns without waiting unless it has host copies to finish;
//  - copies between pageable host memory and the device go through pinned
//    staging buffers, so they are asynchronous on the call's stream (the
//    copies out reach the caller's memory when the stream is synchronized);
//  - CUDA graphs (`traced_gpu_graph_call`): an entry whose arguments are
//    all device memory is captured once into a graph over static copies of
//    its arguments and replayed, one launch for the whole call;
//  - errors do not abort: the first one is kept with CUDA's name and string,
//    later GPU work is skipped, and `traced_cuda_last_error` reports it (the
//    Python wrapper raises it as traced.Error).
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#define TRACED_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

std::mutex errorMutex;
std::string firstError;     // guarded by errorMutex
bool failed = false;        // set once firstError is

/// Records the first failing call; returns whether `result` succeeded.
bool check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::lock_guard<std::mutex> lock(errorMutex);
  if (!failed) {
    firstError = std::string(what) + " failed: " +
                 (name ? name : "CUresult " + std::to_string(result)) + " (" +
                 (text ? text
                       : result == 34 ? "the CUDA driver is a stub library: "
                                        "no GPU driver on this machine"
                                      : "no description") +
                 ")";
    failed = true;
  }
  return false;
}

void fail(const std::string &message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (!failed) {
    firstError = message;
    failed = true;
  }
}

int defaultDevice = 0;
CUcontext context = nullptr;

/// Makes the primary context of the default device current on this thread
/// (initializing the driver on first use). False when there is none.
/// (A failed initialization is reported again on every later use.)
bool ensureContext() {
  static std::once_flag init;
  static std::string initError;
  std::call_once(init, [] {
    CUdevice device;
    if (check(cuInit(0), "cuInit") &&
        check(cuDeviceGet(&device, defaultDevice), "cuDeviceGet"))
      check(cuDevicePrimaryCtxRetain(&context, device),
            "cuDevicePrimaryCtxRetain");
    if (!context) {
      std::lock_guard<std::mutex> lock(errorMutex);
      initError = firstError;
    }
  });
  if (!context) {
    fail(initError);
    return false;
  }
  return check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

std::mutex stateMutex; // guards everything below

/// Device blocks, cached by their rounded size.
struct Block {
  CUdeviceptr ptr;
  CUstream stream; // freed on this stream (null: CUDA's default stream)
  bool pending;    // until `stream` is synchronized
};
std::map<size_t, std::vector<Block>> freeBlocks;
std::unordered_map<CUdeviceptr, size_t> blockSizes;

/// The dynamic workgroup memory each kernel was allowed beyond 48 KiB.
std::unordered_map<CUfunction, int> dynamicSharedAllowed;

size_t roundSize(size_t bytes) { return (bytes + 511) / 512 * 512; }

/// The blocks freed on `stream` are reusable anywhere: it was synchronized.
void markSynchronized(CUstream stream) {
  for (auto &[size, blocks] : freeBlocks)
    for (Block &b : blocks)
      if (b.stream == stream)
        b.pending = false;
}

void releaseCachedBlocks(bool waitForStreams = false) {
  // Blocks freed on a stream nobody synchronized since (a caller's stream)
  // are only reusable on it; under memory pressure, wait for those streams.
  if (waitForStreams) {
    std::vector<CUstream> pending;
    for (auto &[size, blocks] : freeBlocks)
      for (const Block &b : blocks)
        if (b.pending && std::find(pending.begin(), pending.end(),
                                   b.stream) == pending.end())
          pending.push_back(b.stream);
    for (CUstream stream : pending)
      if (cuStreamSynchronize(stream) == CUDA_SUCCESS)
        markSynchronized(stream);
  }
  for (auto &[size, blocks] : freeBlocks) {
    std::vector<Block> kept;
    for (const Block &b : blocks) {
      if (b.pending) {
        kept.push_back(b);
        continue;
      }
      cuMemFree(b.ptr);
      blockSizes.erase(b.ptr);
    }
    blocks.swap(kept);
  }
}

/// Pinned staging memory of one stream: bump-allocated, reset when the
/// stream is synchronized; copies out wait there for the synchronization.
struct Staging {
  struct Chunk {
    char *base;
    size_t size, used;
  };
  std::vector<Chunk> chunks;
  struct Pending {
    void *dst;
    const void *src;
    size_t size;
  };
  std::vector<Pending> copiesOut;

  char *take(size_t bytes) {
    bytes = (bytes + 255) / 256 * 256;
    for (Chunk &c : chunks)
      if (c.size - c.used >= bytes) {
        char *p = c.base + c.used;
        c.used += bytes;
        return p;
      }
    size_t size = bytes > (size_t(8) << 20) ? bytes : (size_t(8) << 20);
    void *base = nullptr;
    if (!check(cuMemHostAlloc(&base, size, CU_MEMHOSTALLOC_PORTABLE),
               "cuMemHostAlloc (pinned staging)"))
      return nullptr;
    chunks.push_back({static_cast<char *>(base), size, bytes});
    return static_cast<char *>(base);
  }
  void reset() {
    for (Chunk &c : chunks)
      c.used = 0;
  }
};
std::unordered_map<CUstream, Staging> staging;
std::vector<CUstream> idleStreams;

/// The stream this thread's calls run on, when `traced_gpu_set_stream` set
/// one (null is CUDA's default stream, torch's default); else the pool's.
thread_local bool useCallerStream = false;
thread_local CUstream callerStream = nullptr;

/// What a graph capture on this thread allocates: every block is the
/// graph's (its kernels' addresses are fixed in it), never the pool's.
struct CaptureBlocks {
  std::vector<std::pair<CUdeviceptr, size_t>> owned; // all, with sizes
  std::map<size_t, std::vector<CUdeviceptr>> freed;  // freed, reusable
};
thread_local CaptureBlocks *capturing = nullptr;

bool isCallerStream(CUstream stream) {
  return useCallerStream && stream == callerStream;
}

/// Resident constants by host address, size and a sample of their bytes
/// (a library loaded where an unloaded one was gets its own copies).
struct ResidentKey {
  uintptr_t host;
  uint64_t bytes, sample;
  bool operator<(const ResidentKey &o) const {
    return std::tie(host, bytes, sample) < std::tie(o.host, o.bytes, o.sample);
  }
};
std::map<ResidentKey, CUdeviceptr> resident;

/// Tensor maps in device memory, by everything they encode.
using TensorMapKey = std::array<uint64_t, 11>;
std::map<TensorMapKey, CUdeviceptr> tensorMaps;
/// Where the next tensor map goes: slabs of 512 maps, never freed (a
/// launch in flight may read any of them).
CUdeviceptr mapSlab = 0;
size_t mapSlabUsed = 0;

uint64_t sampleBytes(const unsigned char *p, uint64_t n) {
  uint64_t h = 1469598103934665603ull; // FNV-1a over the first and last 64
  auto mix = [&](uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; ++i)
      h = (h ^ p[i]) * 1099511628211ull;
  };
  mix(0, n < 64 ? n : 64);
  mix(n < 64 ? n : n - 64, n);
  return h;
}

/// Whether `ptr` is host memory the driver does not know (pageable).
/// (cuPointerGetAttributes, unlike the singular form, answers 0 for such
/// memory rather than failing: compute-sanitizer reports failed calls.)
bool isPageableHost(const void *ptr) {
  unsigned type = 0;
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  void *data[] = {&type};
  CUresult r = cuPointerGetAttributes(1, &attribute, data,
                                      reinterpret_cast<CUdeviceptr>(ptr));
  return r != CUDA_SUCCESS || type == 0;
}

/// Whether `ptr` is device memory of this runtime's context (not managed).
bool isDeviceMemory(const void *ptr) {
  unsigned type = 0, managed = 0;
  CUcontext owner = nullptr;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                      CU_POINTER_ATTRIBUTE_CONTEXT};
  void *data[] = {&type, &managed, &owner};
  return cuPointerGetAttributes(3, attributes, data,
                                reinterpret_cast<CUdeviceptr>(ptr)) ==
             CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_DEVICE && !managed && owner == context;
}

} // namespace

//===----------------------------------------------------------------------===//
// Errors and the cache, for callers (Python, the C loader)
//===----------------------------------------------------------------------===//

/// The first error since the last `traced_cuda_clear_error`, or null.
TRACED_EXPORT const char *traced_cuda_last_error() {
  std::lock_guard<std::mutex> lock(errorMutex);
  return failed ? firstError.c_str() : nullptr;
}

/// Forgets the recorded error (a sticky CUDA error will come back).
TRACED_EXPORT void traced_cuda_clear_error() {
  std::lock_guard<std::mutex> lock(errorMutex);
  failed = false;
  firstError.clear();
}

/// Frees the cached device blocks no stream is using.
TRACED_EXPORT void traced_cuda_release_cache() {
  std::lock_guard<std::mutex> lock(stateMutex);
  if (ensureContext())
    releaseCachedBlocks();
}

/// The device copy of `bytes` of constant host memory at `host`, uploaded
/// on the first call and kept for the life of the process.
TRACED_EXPORT uint64_t traced_gpu_resident(uint64_t host, uint64_t bytes) {
  if (bytes == 0 || !ensureContext())
    return 0;
  auto *data = reinterpret_cast<const unsigned char *>(host);
  ResidentKey key{host, bytes, sampleBytes(data, bytes)};
  std::lock_guard<std::mutex> lock(stateMutex);
  auto it = resident.find(key);
  if (it != resident.end())
    return it->second;
  CUdeviceptr ptr = 0;
  if (!check(cuMemAlloc(&ptr, bytes), "cuMemAlloc (a resident weight)"))
    return 0;
  if (!check(cuMemcpyHtoD(ptr, data, bytes), "cuMemcpyHtoD (a weight)")) {
    cuMemFree(ptr);
    return 0;
  }
  resident.emplace(key, ptr);
  return ptr;
}

/// Nonzero when the kernels can use the memory at `address` in place: device
/// memory (not managed) of this runtime's context, aligned to 256 bytes as
/// the runtime's own allocations are (the kernels' vector loads, asynchronous
/// copies and TMA assume at least 16). Zero for host memory, which the
/// driver may not know (no error is recorded for that).
TRACED_EXPORT int32_t traced_gpu_in_place(uint64_t address) {
  if (address % 256 != 0 || traced_cuda_last_error() || !ensureContext())
    return 0;
  return isDeviceMemory(reinterpret_cast<const void *>(address));
}

/// The device address of a TMA tensor map (a 128-byte `CUtensorMap`) over
/// the row-major buffer at device address `address` (`rank` <= 3
/// dimensions `d0` (innermost) .. `d2`, row pitches `s1`, `s2` in bytes),
/// read in boxes `b0` x `b1` x `b2` with 128-byte swizzling, zeros outside
/// the buffer. `type` is 0 for bfloat16, 1 for float16. Encoded and
/// uploaded on the first request for these values (a synchronous copy),
/// then looked up. Returns 0 after recording an error.
TRACED_EXPORT uint64_t traced_gpu_tensor_map(uint64_t address, int32_t type,
                                             int32_t rank, uint64_t d0,
                                             uint64_t d1, uint64_t d2,
                                             uint64_t s1, uint64_t s2,
                                             uint32_t b0, uint32_t b1,
                                             uint32_t b2) {
  if (traced_cuda_last_error() || !ensureContext())
    return 0;
  if (rank < 1 || rank > 3 || (type != 0 && type != 1)) {
    fail("traced_gpu_tensor_map: unsupported rank " + std::to_string(rank) +
         " or element type " + std::to_string(type));
    return 0;
  }
  if (address % 16 || s1 % 16 || s2 % 16) {
    fail("traced_gpu_tensor_map: a TMA operand must start at a 16-byte "
         "boundary with rows a multiple of 16 bytes (address " +
         std::to_string(address) + ", row pitch " + std::to_string(s1) + ")");
    return 0;
  }
  TensorMapKey key{address, uint64_t(type), uint64_t(rank), d0, d1, d2,
                   s1,      s2,             b0,             b1, b2};
  std::lock_guard<std::mutex> lock(stateMutex);
  auto it = tensorMaps.find(key);
  if (it != tensorMaps.end())
    return it->second;
  CUtensorMap map;
  cuuint64_t dims[3] = {d0, d1, d2}, strides[2] = {s1, s2};
  cuuint32_t box[3] = {b0, b1, b2}, elementStrides[3] = {1, 1, 1};
  if (!check(cuTensorMapEncodeTiled(
                 &map,
                 type == 0 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                           : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                 rank, reinterpret_cast<void *>(address), dims, strides, box,
                 elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                 CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
             "cuTensorMapEncodeTiled"))
    return 0;
  constexpr size_t slabMaps = 512;
  if (!mapSlab || mapSlabUsed == slabMaps) {
    if (!check(cuMemAlloc(&mapSlab, slabMaps * sizeof(CUtensorMap)),
               "cuMemAlloc (tensor maps)")) {
      mapSlab = 0;
      return 0;
    }
    mapSlabUsed = 0;
  }
  CUdeviceptr slot = mapSlab + mapSlabUsed * sizeof(CUtensorMap);
  if (!check(cuMemcpyHtoD(slot, &map, sizeof(map)),
             "cuMemcpyHtoD (a tensor map)"))
    return 0;
  ++mapSlabUsed;
  tensorMaps.emplace(key, slot);
  return slot;
}

//===----------------------------------------------------------------------===//
// The mgpu* functions gpu-to-llvm and the binary's constructor call
//===----------------------------------------------------------------------===//

TRACED_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}

TRACED_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  CUmodule module = nullptr;
  if (ensureContext())
    check(cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

TRACED_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule module = nullptr;
  if (!ensureContext())
    return nullptr;
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
  if (module)
    check(cuModuleUnload(module), "cuModuleUnload");
}

TRACED_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                               const char *name) {
  CUfunction function = nullptr;
  if (module)
    check(cuModuleGetFunction(&function, module, name), "cuModuleGetFunction");
  return function;
}

TRACED_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                    intptr_t gridY, intptr_t gridZ,
                                    intptr_t blockX, intptr_t blockY,
                                    intptr_t blockZ, int32_t smem,
                                    CUstream stream, void **params,
                                    void **extra, size_t /*paramsCount*/) {
  if (traced_cuda_last_error() || !function || !ensureContext())
    return;
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return; // an empty tensor: nothing to do
  // More than 48 KiB of dynamic workgroup memory (the tensor-core kernels'
  // copy pipeline) must be allowed per function first.
  if (smem > 48 * 1024) {
    std::lock_guard<std::mutex> lock(stateMutex);
    int &allowed = dynamicSharedAllowed[function];
    if (allowed < smem) {
      if (!check(cuFuncSetAttribute(
                     function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                     smem),
                 "cuFuncSetAttribute"))
        return;
      allowed = smem;
    }
  }
  check(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                       smem, stream, params, extra),
        "cuLaunchKernel");
}

/// Runs this thread's later calls on `stream` (a CUstream of the primary
/// context, such as torch.cuda.current_stream().cuda_stream; null is CUDA's
/// default stream), until `traced_gpu_unset_stream`. On the caller's stream a
/// call is ordered after the work queued there before it, so the caller
/// need not synchronize first, and it returns without waiting for its
/// kernels unless it copied through host memory (pageable arguments or
/// results): the caller's later work on the stream sees its results.
/// Errors of kernels still running when it returns surface later (at the
/// caller's next synchronization), as CUDA's asynchronous errors do.
TRACED_EXPORT void traced_gpu_set_stream(void *stream) {
  useCallerStream = true;
  callerStream = static_cast<CUstream>(stream);
}

/// Back to the runtime's own streams for this thread's later calls.
TRACED_EXPORT void traced_gpu_unset_stream() {
  useCallerStream = false;
  callerStream = nullptr;
}

TRACED_EXPORT CUstream mgpuStreamCreate() {
  if (!ensureContext())
    return nullptr;
  if (useCallerStream)
    return callerStream;
  {
    std::lock_guard<std::mutex> lock(stateMutex);
    if (!idleStreams.empty()) {
      CUstream stream = idleStreams.back();
      idleStreams.pop_back();
      return stream;
    }
  }
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return stream;
}

/// Whether `stream` has host copies to finish: staged copies out, or
/// pinned staging still read by copies in. (Call with stateMutex held.)
bool hasHostCopies(CUstream stream) {
  auto it = staging.find(stream);
  if (it == staging.end())
    return false;
  if (!it->second.copiesOut.empty())
    return true;
  for (const Staging::Chunk &c : it->second.chunks)
    if (c.used)
      return true;
  return false;
}

TRACED_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  if (!context)
    return;
  if (isCallerStream(stream)) {
    // The caller's stream: its later work is ordered after this call's, so
    // only host copies make the call wait.
    std::lock_guard<std::mutex> lock(stateMutex);
    if (!hasHostCopies(stream))
      return;
  }
  check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::lock_guard<std::mutex> lock(stateMutex);
  auto it = staging.find(stream);
  if (it != staging.end()) {
    if (!traced_cuda_last_error())
      for (const Staging::Pending &p : it->second.copiesOut)
        std::memcpy(p.dst, p.src, p.size);
    it->second.copiesOut.clear();
    it->second.reset();
  }
  markSynchronized(stream);
}

/// Streams go back to the pool (synchronized first: a stream is only
/// destroyed after its last wait).
TRACED_EXPORT void mgpuStreamDestroy(CUstream stream) {
  if (isCallerStream(stream)) { // the caller's: not ours to pool
    mgpuStreamSynchronize(stream);
    return;
  }
  if (!stream)
    return;
  mgpuStreamSynchronize(stream);
  std::lock_guard<std::mutex> lock(stateMutex);
  idleStreams.push_back(stream);
}

TRACED_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  if (stream && event)
    check(cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

TRACED_EXPORT CUevent mgpuEventCreate() {
  CUevent event = nullptr;
  if (ensureContext())
    check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

TRACED_EXPORT void mgpuEventDestroy(CUevent event) {
  if (event)
    check(cuEventDestroy(event), "cuEventDestroy");
}

TRACED_EXPORT void mgpuEventSynchronize(CUevent event) {
  if (event)
    check(cuEventSynchronize(event), "cuEventSynchronize");
}

TRACED_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  if (event)
    check(cuEventRecord(event, stream), "cuEventRecord");
}

namespace {

/// A block of `size` (rounded) bytes from the cache or cuMemAlloc. (Call
/// with stateMutex held.)
void *allocateBlock(size_t size, CUstream stream) {
  auto it = freeBlocks.find(size);
  if (it != freeBlocks.end())
    for (size_t i = it->second.size(); i-- > 0;) {
      Block b = it->second[i];
      if (!b.pending || b.stream == stream) {
        it->second.erase(it->second.begin() + i);
        return reinterpret_cast<void *>(b.ptr);
      }
    }
  CUdeviceptr ptr = 0;
  CUresult result = cuMemAlloc(&ptr, size);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    releaseCachedBlocks(/*waitForStreams=*/true);
    result = cuMemAlloc(&ptr, size);
  }
  if (!check(result, "cuMemAlloc"))
    return nullptr;
  blockSizes[ptr] = size;
  return reinterpret_cast<void *>(ptr);
}

} // namespace

/// Device memory from the cache or cuMemAlloc. Managed memory
/// (`isHostShared`) is refused: it can hang the GPU, and nothing the
/// pipeline emits asks for it.
TRACED_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                                 bool isHostShared) {
  if (isHostShared) {
    fail("mgpuMemAlloc: managed (host_shared) memory was requested; the "
         "traced CUDA runtime allocates device memory only");
    return nullptr;
  }
  if (sizeBytes == 0 || !ensureContext())
    return nullptr;
  size_t size = roundSize(sizeBytes);
  std::lock_guard<std::mutex> lock(stateMutex);
  if (capturing) {
    // A block the capture freed before: reused in the graph's own order
    // (a capture records one stream, so its nodes form a chain).
    auto it = capturing->freed.find(size);
    if (it != capturing->freed.end() && !it->second.empty()) {
      CUdeviceptr ptr = it->second.back();
      it->second.pop_back();
      return reinterpret_cast<void *>(ptr);
    }
  }
  void *ptr = allocateBlock(size, stream);
  if (ptr && capturing)
    capturing->owned.push_back({reinterpret_cast<CUdeviceptr>(ptr), size});
  return ptr;
}

/// Back to the cache, reusable on `stream` at once (stream order) and on
/// others once `stream` is synchronized.
TRACED_EXPORT void mgpuMemFree(void *ptr, CUstream stream) {
  if (!ptr)
    return;
  auto device = reinterpret_cast<CUdeviceptr>(ptr);
  std::lock_guard<std::mutex> lock(stateMutex);
  auto it = blockSizes.find(device);
  if (capturing && it != blockSizes.end()) { // the graph's: kept for it
    capturing->freed[it->second].push_back(device);
    return;
  }
  if (it == blockSizes.end()) { // not ours: free it after the stream's work
    if (stream)
      check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    check(cuMemFree(device), "cuMemFree");
    return;
  }
  freeBlocks[it->second].push_back({device, stream, /*pending=*/true});
}

TRACED_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                              CUstream stream) {
  // (A buffer onto itself: an argument the function uses in place.)
  if (sizeBytes == 0 || dst == src || traced_cuda_last_error() ||
      !ensureContext())
    return;
  bool fromHost = isPageableHost(src), toHost = isPageableHost(dst);
  if (fromHost && toHost) { // both in host memory the driver does not know
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::memmove(dst, src, sizeBytes);
    return;
  }
  if (fromHost || toHost) {
    std::lock_guard<std::mutex> lock(stateMutex);
    Staging &stage = staging[stream];
    char *pinned = stage.take(sizeBytes);
    if (!pinned)
      return;
    if (fromHost) {
      std::memcpy(pinned, src, sizeBytes);
      check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                          reinterpret_cast<CUdeviceptr>(pinned), sizeBytes,
                          stream),
            "cuMemcpyAsync (to the device)");
    } else {
      check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(pinned),
                          reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                          stream),
            "cuMemcpyAsync (from the device)");
      stage.copiesOut.push_back({dst, pinned, sizeBytes});
    }
    return;
  }
  check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream),
        "cuMemcpyAsync");
}

TRACED_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                CUstream stream) {
  if (count && !traced_cuda_last_error())
    check(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                           stream),
          "cuMemsetD32Async");
}

TRACED_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                CUstream stream) {
  if (count && !traced_cuda_last_error())
    check(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                           stream),
          "cuMemsetD16Async");
}

TRACED_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  if (ensureContext())
    check(cuMemHostRegister(ptr, sizeBytes, CU_MEMHOSTREGISTER_PORTABLE),
          "cuMemHostRegister");
}

TRACED_EXPORT void mgpuMemHostUnregister(void *ptr) {
  check(cuMemHostUnregister(ptr), "cuMemHostUnregister");
}

//===----------------------------------------------------------------------===//
// CUDA graphs: a whole call as one launch
//===----------------------------------------------------------------------===//

namespace {

using Entry = int32_t (*)(void **, void **);

/// An entry's graph: static device copies of its arguments (the graph's
/// kernels read and write fixed addresses), the blocks the capture
/// allocated (the graph's for good), and the executable graph.
struct EntryGraph {
  std::vector<CUdeviceptr> buffers;      // inputs, then outputs
  std::vector<uint64_t> bytes;           // each buffer's size
  CaptureBlocks blocks;
  CUgraphExec exec = nullptr;
  CUevent done = nullptr; // recorded after each call's copies out
  bool unusable = false;  // the capture failed: plain calls from now on
};
/// Entries captured into fewer operations than this are called plainly.
constexpr size_t minGraphNodes = 3;
std::mutex graphMutex; // guards graphs and serializes graph calls
std::map<Entry, EntryGraph> graphs;

/// Gives a capture's blocks back to the cache, reusable anywhere (nothing
/// uses them any more), and forgets them.
void returnToCache(CaptureBlocks &blocks) {
  std::lock_guard<std::mutex> lock(stateMutex);
  for (auto [ptr, size] : blocks.owned)
    freeBlocks[size].push_back({ptr, nullptr, /*pending=*/false});
  blocks = CaptureBlocks();
}

/// `entry` on `stream` as a plain call (traced_gpu_set_stream).
int32_t plainCall(Entry entry, void **inputs, void **outputs,
                  CUstream stream) {
  bool had = useCallerStream;
  CUstream old = callerStream;
  traced_gpu_set_stream(stream);
  int32_t status = entry(inputs, outputs);
  useCallerStream = had;
  callerStream = old;
  return status;
}

/// The graph's buffers as the entry's argument array (inputs first).
std::vector<void *> bufferArgs(const EntryGraph &g) {
  std::vector<void *> args;
  for (CUdeviceptr b : g.buffers)
    args.push_back(reinterpret_cast<void *>(b));
  return args;
}

/// Copies the call's arguments into the graph's buffers (`in`) or its
/// results out of them, on `stream`.
bool copyArguments(EntryGraph &g, void **inputs, size_t numInputs,
                   void **outputs, bool in, CUstream stream) {
  for (size_t i = 0; i < g.buffers.size(); ++i) {
    bool isInput = i < numInputs;
    if (isInput != in || g.bytes[i] == 0)
      continue;
    auto user = reinterpret_cast<CUdeviceptr>(
        isInput ? inputs[i] : outputs[i - numInputs]);
    if (!check(in ? cuMemcpyDtoDAsync(g.buffers[i], user, g.bytes[i], stream)
                  : cuMemcpyDtoDAsync(user, g.buffers[i], g.bytes[i], stream),
               "cuMemcpyDtoDAsync (a graph argument)"))
      return false;
  }
  return true;
}

/// Captures `entry` over the graph's buffers on a stream of its own (a
/// capture cannot run on CUDA's legacy default stream). A failure, or a
/// graph of fewer than minGraphNodes operations, leaves the graph unusable
/// (plain calls from then on) and the recorded error as it was before.
void capture(Entry entry, EntryGraph &g, size_t numInputs, CUstream stream) {
  g.unusable = true;
  if (!check(cuStreamSynchronize(stream), "cuStreamSynchronize"))
    return;
  {
    std::lock_guard<std::mutex> lock(stateMutex);
    markSynchronized(stream);
  }
  CUstream side = nullptr;
  if (!check(cuStreamCreate(&side, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    return;
  std::vector<void *> args = bufferArgs(g);
  CUgraph graph = nullptr;
  int32_t status = -1;
  if (cuStreamBeginCapture(side, CU_STREAM_CAPTURE_MODE_RELAXED) ==
      CUDA_SUCCESS) {
    capturing = &g.blocks;
    status = plainCall(entry, args.data(), args.data() + numInputs, side);
    capturing = nullptr;
    if (cuStreamEndCapture(side, &graph) != CUDA_SUCCESS)
      graph = nullptr;
  }
  // An error inside the capture (an operation a capture does not allow)
  // is the capture's, not the caller's: forget it and call plainly.
  if (traced_cuda_last_error())
    traced_cuda_clear_error();
  // A graph of one or two operations saves less than the copies of the
  // arguments cost (0.020 ms plain, 0.025 as a graph on an H200).
  size_t nodes = 0;
  if (graph && status == 0 &&
      cuGraphGetNodes(graph, nullptr, &nodes) == CUDA_SUCCESS &&
      nodes >= minGraphNodes &&
      cuGraphInstantiate(&g.exec, graph, 0) == CUDA_SUCCESS)
    g.unusable = false;
  if (graph)
    cuGraphDestroy(graph);
  cuStreamDestroy(side);
  if (!g.unusable) {
    check(cuEventCreate(&g.done, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    return;
  }
  // Nothing ran on the blocks of a failed capture: back to the cache.
  returnToCache(g.blocks);
}

} // namespace

/// Runs `entry` (a compiled model's `traced_<name>`, with `numInputs`
/// arguments of `inputBytes` bytes and `numOutputs` results of
/// `outputBytes`) on `stream` as a CUDA graph when every argument and
/// result is device memory: the first call runs it plainly over static
/// device copies of its arguments (uploading the weights, filling the
/// cache), the second captures it into a graph over those copies, and
/// every call from then on copies its arguments in, launches the graph and
/// copies the results out, all queued on `stream` (ordered after earlier
/// calls on other streams). The graph keeps its intermediate buffers until
/// traced_gpu_graph_release. Otherwise, or when the capture fails (an
/// operation a capture does not allow), a plain call (traced_gpu_set_stream).
/// Returns the entry's status, or 0 for a graph launch (whose checks passed
/// at capture: shapes are static). Errors are recorded as for other calls.
TRACED_EXPORT int32_t traced_gpu_graph_call(void *entryFn, void **inputs,
                                            const uint64_t *inputBytes,
                                            int32_t numInputs, void **outputs,
                                            const uint64_t *outputBytes,
                                            int32_t numOutputs, void *stream) {
  auto entry = reinterpret_cast<Entry>(entryFn);
  auto cuStream = static_cast<CUstream>(stream);
  if (traced_cuda_last_error() || !ensureContext())
    return plainCall(entry, inputs, outputs, cuStream);
  std::vector<uint64_t> bytes(inputBytes, inputBytes + numInputs);
  bytes.insert(bytes.end(), outputBytes, outputBytes + numOutputs);
  bool onDevice = true;
  for (int32_t i = 0; i < numInputs + numOutputs && onDevice; ++i)
    onDevice = bytes[i] == 0 ||
               isDeviceMemory(i < numInputs ? inputs[i] : outputs[i - numInputs]);
  std::lock_guard<std::mutex> lock(graphMutex);
  EntryGraph &g = graphs[entry];
  if (!onDevice || g.unusable || (!g.bytes.empty() && g.bytes != bytes))
    return plainCall(entry, inputs, outputs, cuStream);
  // The first call runs plainly over the new buffers (weights uploaded,
  // tensor maps encoded, the cache filled); the second captures.
  bool first = g.buffers.empty();
  if (first) {
    std::vector<CUdeviceptr> buffers;
    for (uint64_t b : bytes) {
      CUdeviceptr ptr = 0;
      if (b && !check(cuMemAlloc(&ptr, roundSize(b)),
                      "cuMemAlloc (a graph argument)")) {
        for (CUdeviceptr allocated : buffers)
          if (allocated)
            cuMemFree(allocated);
        return -1;
      }
      buffers.push_back(ptr);
    }
    g.buffers = std::move(buffers);
    g.bytes = bytes;
  }
  if (g.done && !check(cuStreamWaitEvent(cuStream, g.done, 0), "cuStreamWaitEvent"))
    return -1;
  if (!copyArguments(g, inputs, numInputs, outputs, /*in=*/true, cuStream))
    return -1;
  int32_t status = 0;
  std::vector<void *> args = bufferArgs(g);
  if (first) {
    status = plainCall(entry, args.data(), args.data() + numInputs, cuStream);
    if (status != 0)
      g.unusable = true;
  } else {
    if (!g.exec)
      capture(entry, g, numInputs, cuStream);
    if (g.unusable) // the arguments are in the buffers: run over them
      status = plainCall(entry, args.data(), args.data() + numInputs, cuStream);
    else if (!check(cuGraphLaunch(g.exec, cuStream), "cuGraphLaunch"))
      return -1;
  }
  if (status == 0 && !copyArguments(g, inputs, numInputs, outputs, /*in=*/false, cuStream))
    return -1;
  if (g.done)
    check(cuEventRecord(g.done, cuStream), "cuEventRecord");
  return status;
}

/// Forgets `entry`'s graph (traced_gpu_graph_call): waits for its last
/// call, destroys the executable graph, frees its argument buffers and
/// gives the blocks its capture allocated back to the cache. The next
/// graph call of `entry` starts over (a plain call, then a capture).
/// Nothing when `entry` has no graph.
TRACED_EXPORT void traced_gpu_graph_release(void *entryFn) {
  std::lock_guard<std::mutex> lock(graphMutex);
  auto it = graphs.find(reinterpret_cast<Entry>(entryFn));
  if (it == graphs.end())
    return;
  EntryGraph &g = it->second;
  if (context && ensureContext()) {
    if (g.done) {
      check(cuEventSynchronize(g.done), "cuEventSynchronize");
      cuEventDestroy(g.done);
    } else if (!g.buffers.empty()) { // only the plain first call: no event
      check(cuCtxSynchronize(), "cuCtxSynchronize");
    }
    if (g.exec)
      cuGraphExecDestroy(g.exec);
    for (CUdeviceptr b : g.buffers)
      if (b)
        cuMemFree(b);
    returnToCache(g.blocks);
  }
  graphs.erase(it);
}
