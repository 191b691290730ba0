//===- OpLibrary.cpp - queries of the op library --------------------------===//
//
// What the op library knows: targets, signatures, dtypes, which entries
// are lowered or decomposed (the conformance suite reads them), and the
// family each layer files an entry under.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Transforms/GraphRewrites.h"

#include "TracedIR/Conversion/Passes.h"
#include "TracedIR/Interpreter/Kernels.h"

using namespace traced_python;

void traced_python::populateOpLibrary(py::module_ &m) {
  m.def(
      "op_library_targets",
      [] {
        std::vector<std::string> names;
        for (const OpSpec &op : OpLibrary::get().getOps())
          names.push_back(op.name.str());
        return names;
      },
      "The canonical names of the op library's targets.");
  m.def(
      "op_library_signatures",
      [] {
        std::map<std::string, std::string> sigs;
        for (const OpSpec &op : OpLibrary::get().getOps())
          sigs[op.name.str()] = op.signature.text;
        return sigs;
      },
      "{canonical name: signature} of the op library's entries.");
  m.def(
      "accepts_dtype",
      [](const std::string &target, const std::string &dtype) {
        const OpSpec *spec = OpLibrary::get().lookupFunction(target);
        std::optional<DType> d = traced::dtypeFromName(dtype);
        if (!spec || !d)
          fail("unknown target or dtype");
        return spec->acceptsDType(*d);
      },
      "Whether an entry accepts a tensor `input` of a dtype (\"float16\").");
  m.def(
      "canonical_target",
      [](const std::string &name) -> std::optional<std::string> {
        const OpSpec *spec = StringRef(name).starts_with("Tensor.")
                                 ? OpLibrary::get().lookupMethod(
                                       StringRef(name).drop_front(7))
                                 : OpLibrary::get().lookupFunction(name);
        if (!spec)
          return std::nullopt;
        return spec->name.str();
      },
      "The canonical name of a function or `Tensor.<method>`, or None.");
  m.def(
      "interpreter_only_marks",
      [] {
        // {entry: [(dtypes, conditional, reason)]}: OpSpec::interpreterOnly.
        std::map<std::string,
                 std::vector<std::tuple<std::vector<std::string>, bool,
                                        std::string>>>
            marks;
        for (const OpSpec &op : OpLibrary::get().getOps())
          for (const InterpreterOnly &mark : op.interpreterOnly) {
            std::vector<std::string> dtypes;
            for (unsigned d = 0; d < 16; ++d)
              if (mark.dtypes & (1u << d))
                dtypes.push_back(dtypeName(static_cast<DType>(d)).str());
            marks[op.name.str()].emplace_back(dtypes, mark.when != nullptr,
                                              mark.reason.str());
          }
        return marks;
      },
      "{entry: [(dtypes, conditional, reason)]}: the calls the op library "
      "marks interpreter-only (dtypes: those that make a call so, empty "
      "for any; conditional: only when a condition on the arguments holds).");
  m.def("lowered_targets", &getLoweredTargets,
        "The targets convert-traced-to-linalg lowers (directly or through "
        "a decomposition).");
  m.def("decomposed_targets", &getDecomposedTargets,
        "The targets traced-decompose rewrites as other entries.");
  m.def(
      "op_families",
      [] {
        // Every entry with a kernel, a lowering or a decomposition.
        std::map<std::string, std::map<std::string, std::string>> families;
        auto add = [&](StringRef entry) {
          std::map<std::string, std::string> &f = families[entry.str()];
          for (auto [layer, family] :
               {std::pair{"kernel", kernelFamily(entry)},
                std::pair{"lowering", loweringFamily(entry)},
                std::pair{"decomposition", decompositionFamily(entry)}})
            if (!family.empty())
              f[layer] = family.str();
        };
        for (const auto &entry : getKernelTable())
          add(entry.getKey());
        for (const std::string &entry : getLoweredTargets())
          add(entry);
        for (const std::string &entry : getDecomposedTargets())
          add(entry);
        return families;
      },
      "{entry: {\"kernel\": family, \"lowering\": family, "
      "\"decomposition\": family}} of the entries with a kernel, a direct "
      "lowering or a decomposition (a layer without one is left out); each "
      "layer names an entry in the file of its family.");
  m.def(
      "is_known_module",
      [](const std::string &className) {
        return OpLibrary::get().lookupModule(className) != nullptr;
      },
      "Whether the op library knows a leaf module class.");
  m.def(
      "is_known_function",
      [](const std::string &name) {
        return OpLibrary::get().lookupFunction(name) != nullptr;
      },
      "Whether the op library knows a function or `Tensor.<method>`.");
}
