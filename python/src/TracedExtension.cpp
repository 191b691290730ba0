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

using namespace traced_python;

PYBIND11_MODULE(_traced, m) {
  m.doc() = "C++ core of the traced package (TracedIR)";
  // The same passes as traced-opt, registered once per process.
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { traced::registerAllPasses(); });
  static py::exception<TracedError> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const TracedError &e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });

  populateIR(m);
  populateExecution(m);
  populateOpLibrary(m);
}
