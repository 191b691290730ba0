//===- Execution.cpp - compiled models ------------------------------------===//
//
// traced.compile's JIT-loaded CpuModule (run on raw buffers; the Python
// side checks shapes and dtypes and owns them) and the object writer.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/Runtime/Threads.h"
#include "TracedIR/Support/Progress.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

using namespace traced_python;

/// traced._traced.CpuModule: a JIT-loaded CpuModule runs on raw buffers;
/// the Python side (traced.compile) checks shapes and dtypes and owns them.
static void populateCpuModule(py::module_ &m) {
  py::class_<CpuModule, std::shared_ptr<CpuModule>>(m, "CpuModule")
      .def_property_readonly("from_cache", &CpuModule::loadedFromCache)
      .def_property_readonly(
          "signature",
          [](const CpuModule &c) {
            // (Plain data: the signature's types die with the traced
            // module's context, which `del m` may free.)
            auto specs = [](ArrayRef<CpuModule::TensorSpec> in) {
              py::list out;
              for (const CpuModule::TensorSpec &s : in)
                out.append(py::make_tuple(s.shape, s.dtype));
              return out;
            };
            return py::make_tuple(specs(c.getInputSpecs()),
                                  specs(c.getResultSpecs()));
          })
      .def_property_readonly("dim_names",
                             [](const CpuModule &c) {
                               return std::vector<std::string>(
                                   c.getDimNames().begin(),
                                   c.getDimNames().end());
                             })
      .def("output_shapes",
           [](const CpuModule &c, const std::vector<int64_t> &sizes) {
             // (Not through getSignature(): its context may be gone.)
             return c.outputShapes(sizes.data());
           })
      .def(
          "run",
          [](const CpuModule &c, const std::vector<uintptr_t> &in,
             const std::vector<uintptr_t> &out,
             const std::vector<int64_t> &sizes) {
            std::vector<void *> inputs, outputs;
            for (uintptr_t p : in)
              inputs.push_back(reinterpret_cast<void *>(p));
            for (uintptr_t p : out)
              outputs.push_back(reinterpret_cast<void *>(p));
            std::optional<std::string> failedCheck;
            bool outOfMemory = false;
            {
              py::gil_scoped_release release;
              failedCheck = c.run(inputs.data(), outputs.data(), sizes.data(),
                                  &outOfMemory);
            }
            if (failedCheck && outOfMemory)
              failResource(*failedCheck);
            if (failedCheck)
              fail(*failedCheck);
          },
          py::arg("inputs"), py::arg("outputs"),
          py::arg("sizes") = std::vector<int64_t>());
}

/// compile_cpu: the module compiled and JIT-loaded, and the timing report.
static py::tuple compileCpu(ModuleState &s, const std::string &entry,
                            bool vectorize, int64_t tileN, bool surgery,
                            bool packRhs, bool winograd,
                            std::optional<bool> progress, bool timing,
                            std::optional<std::string> cacheDir, bool checks,
                            const std::vector<std::string> &donate) {
  DiagnosticCapture diags(s.ctx.get());
  CpuPipelineOptions options;
  options.checks = checks;
  options.donate = donate;
  options.entry = entry;
  options.vectorize = vectorize;
  options.tileN = tileN;
  options.packRhs = packRhs;
  options.winograd = winograd;
  options.surgery = surgery;
  CompileMonitor monitor;
  monitor.progress = progress.value_or(progressWanted());
  monitor.cancelled = pythonSignalPending;
  // With `timing`, the per-pass and LLVM stage times, as a tree, the
  // way `--mlir-timing --mlir-timing-display=tree` prints them.
  std::string report;
  llvm::raw_string_ostream reportStream(report);
  DefaultTimingManager timer;
  timer.setEnabled(timing);
  timer.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  timer.setOutput(createOutputStrategy(DefaultTimingManager::OutputFormat::Text,
                                       reportStream));
  FailureOr<std::unique_ptr<CpuModule>> compiled;
  {
    TimingScope root = timer.getRootScope();
    if (timing)
      monitor.timing = &root;
    compiled =
        CpuModule::compile(s.get(), options, monitor,
                           cacheDir ? *cacheDir : defaultCompileCacheDir());
  }
  if (failed(compiled) && monitor.wasCancelled)
    throw py::error_already_set(); // KeyboardInterrupt, or what the
                                   // signal handler raised
  if (failed(compiled))
    diags.raise("cannot compile the module for the CPU");
  if (timing)
    timer.print();
  reportStream.flush();
  return py::make_tuple(std::shared_ptr<CpuModule>(std::move(*compiled)),
                        report);
}

/// write_cpu_object: the module lowered for the CPU, as an object file.
static void writeCpuObjectFile(ModuleState &s, const std::string &path,
                               const std::string &entry, bool vectorize,
                               std::optional<bool> progress) {
  DiagnosticCapture diags(s.ctx.get());
  CpuPipelineOptions options;
  options.entry = entry;
  options.vectorize = vectorize;
  CompileMonitor monitor;
  monitor.progress = progress.value_or(progressWanted());
  monitor.cancelled = pythonSignalPending;
  OwningOpRef<mlir::ModuleOp> copy(s.get().clone());
  if (failed(lowerForCpu(*copy, options, monitor)))
    monitor.wasCancelled ? throw py::error_already_set()
                         : diags.raise("cannot compile the module for the CPU");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    fail("cannot write " + path + ": " + ec.message());
  if (failed(writeCpuObject(*copy, os, monitor)))
    monitor.wasCancelled ? throw py::error_already_set()
                         : diags.raise("cannot write the object file");
}

/// write_gpu_object: the module lowered for the GPU, as a host object file
/// with the kernels embedded.
static void writeGpuObjectFile(ModuleState &s, const std::string &path,
                               const std::string &entry,
                               const std::string &chip,
                               const std::string &format, bool surgery,
                               bool allowTf32, bool fuseEpilogues) {
  DiagnosticCapture diags(s.ctx.get());
  GpuPipelineOptions options;
  options.entry = entry;
  options.chip = chip;
  options.format = format;
  options.surgery = surgery;
  options.tf32 = allowTf32;
  options.fuseEpilogues = fuseEpilogues;
  OwningOpRef<mlir::ModuleOp> copy(s.get().clone());
  PassManager pm(s.ctx.get(), mlir::ModuleOp::getOperationName());
  buildGpuPipeline(pm, options);
  if (failed(pm.run(*copy)))
    diags.raise("cannot compile the module for the GPU");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    fail("cannot write " + path + ": " + ec.message());
  if (failed(writeCpuObject(*copy, os)))
    diags.raise("cannot write the object file");
}

void traced_python::populateExecution(py::module_ &m) {
  populateCpuModule(m);
  // The thread count of compiled calls (Runtime/Threads.h).
  m.def("set_num_threads", &traced_set_num_threads, py::arg("n"),
        "Sets the thread count of compiled calls (0: libomp's default).");
  m.def("get_num_threads", &traced_get_num_threads,
        "The thread count the next compiled call uses.");
  m.def("enter_call", &traced_enter_call,
        "Applies the thread count to this thread; returns it.");
  m.def("compile_cpu", &compileCpu, py::arg("state"),
        py::arg("entry") = "forward", py::arg("vectorize") = true,
        py::arg("tile_n") = 0, py::arg("surgery") = true,
        py::arg("pack_rhs") = true, py::arg("winograd") = true,
        py::arg("progress") = py::none(), py::arg("timing") = false,
        py::arg("cache_dir") = py::none(), py::arg("checks") = true,
        py::arg("donate") = std::vector<std::string>());
  m.def("write_cpu_object", &writeCpuObjectFile, py::arg("state"),
        py::arg("path"), py::arg("entry") = "forward",
        py::arg("vectorize") = true, py::arg("progress") = py::none());
  m.def("write_gpu_object", &writeGpuObjectFile, py::arg("state"),
        py::arg("path"), py::arg("entry") = "forward",
        py::arg("chip") = "sm_90", py::arg("format") = "isa",
        py::arg("surgery") = true, py::arg("allow_tf32") = false,
        py::arg("fuse_epilogues") = true);
}
