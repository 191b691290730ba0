//===- TracedExtension.cpp - the _traced Python extension -----------------===//
//
// A small pybind11 surface over the C++ IR: parse and print modules, verify,
// run pass pipelines, read and write weights, and the graph-surgery
// primitives the pure-Python `traced` package builds its TracedModule-style
// API on. Every MLIR diagnostic raised during a call becomes `traced.Error`
// carrying the diagnostic text; nothing here may abort the interpreter.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "TracedIR/InitAll.h"
#include "TracedIR/Support/Limits.h"

using namespace traced_python;

PYBIND11_MODULE(_traced, m) {
  m.doc() = "C++ core of the traced package (TracedIR)";
  // The same passes as traced-opt, registered once per process.
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { traced::registerAllPasses(); });
  static py::exception<TracedError> error(m, "Error");
  // A limit reached or memory run out: a traced.Error, and a MemoryError
  // for code that already catches that (PyErr_NewException takes a tuple
  // of bases).
  static py::exception<TracedResourceError> resourceError(
      m, "ResourceError", py::make_tuple(error, py::handle(PyExc_MemoryError)));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const TracedResourceError &e) {
      PyErr_SetString(resourceError.ptr(), e.what());
    } catch (const TracedError &e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (const std::bad_alloc &) {
      PyErr_SetString(resourceError.ptr(),
                      "out of memory: an allocation failed (std::bad_alloc)");
    }
  });
  m.def(
      "get_limits",
      [] {
        ResourceLimits l = getResourceLimits();
        return py::make_tuple(l.maxTensorBytes, l.maxOps);
      },
      "The resource limits now: (max_tensor_bytes, max_ops).");
  m.def("describe_tensor_bytes_limit", &describeTensorBytesLimit,
        "How messages name the max_tensor_bytes limit now.");
  m.def(
      "set_limits",
      [](uint64_t maxTensorBytes, uint64_t maxOps) {
        setResourceLimits({maxTensorBytes, maxOps});
      },
      py::arg("max_tensor_bytes"), py::arg("max_ops"),
      "Sets the resource limits; 0 takes a limit's default.");

  populateIR(m);
  populatePasses(m);
  populateExecution(m);
  populateOpLibrary(m);
}
