//===- Passes.cpp - pass pipelines on a module ----------------------------===//
//
// Module.run_passes and the dynamic-dims merge: the pass registry's side of
// the bindings (registered after IR.cpp's Module class, onto it).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "TracedIR/Transforms/DynamicDims.h"
#include "TracedIR/Transforms/Passes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace traced_python;

void traced_python::populatePasses(py::module_ &m) {
  auto cls = py::reinterpret_borrow<py::class_<ModuleState, StateRef>>(
      m.attr("Module"));
  cls
      .def("run_passes",
           [](ModuleState &s, const std::string &pipeline) {
             DiagnosticCapture diags(s.ctx.get());
             s.changed();
             PassManager pm(s.ctx.get(), mlir::ModuleOp::getOperationName());
             std::string err;
             llvm::raw_string_ostream errStream(err);
             if (failed(parsePassPipeline(pipeline, pm, errStream)))
               fail("invalid pass pipeline '" + pipeline + "': " + err);
             diags.check(pm.run(s.get()), "pass pipeline failed");
           })
      .def("merge_dynamic",
           [](ModuleState &s, ModuleState &other,
              const std::vector<std::tuple<unsigned, int64_t, std::string>>
                  &dims) {
             DiagnosticCapture diags(s.ctx.get());
             DiagnosticCapture otherDiags(other.ctx.get());
             s.changed();
             std::vector<DynamicDim> list;
             for (const auto &[input, dim, name] : dims)
               list.push_back({input, dim, name});
             diags.check(mergeDynamicTrace(s.get(), other.get(), list),
                         "cannot make the dims dynamic");
             diags.check(verify(s.get()),
                         "the module with dynamic dims does not verify");
           },
           py::arg("other"), py::arg("dims"));
}
