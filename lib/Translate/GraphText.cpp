//===- GraphText.cpp - TracedModule-style graph printing ------------------===//

#include "TracedIR/Translate/GraphText.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/AsmState.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::traced;

namespace {
class GraphTextPrinter {
public:
  GraphTextPrinter(GraphOp graph, llvm::raw_ostream &os)
      : graph(graph), os(os), state(graph) {}

  void print() {
    auto module = graph->getParentOfType<traced::ModuleOp>();
    os << shortName(module.getClassName()) << "."
       << (graph.getSymName() == "forward" ? StringRef("Graph")
                                           : graph.getSymName())
       << " (";
    llvm::interleaveComma(graph.getArguments(), os,
                          [&](Value v) { os << name(v); });
    os << ") {\n";
    unsigned id = graph.getNumArguments();
    for (Operation &op : graph.getBody().front()) {
      if (auto output = dyn_cast<OutputOp>(op)) {
        os << "        return ";
        llvm::interleaveComma(output.getResults(), os,
                              [&](Value v) { os << name(v); });
        os << "\n";
        continue;
      }
      os << "        %" << id++ << ":\t";
      llvm::interleaveComma(op.getResults(), os,
                            [&](Value v) { os << name(v); });
      os << " = ";
      printExpr(op);
      os << "\n";
    }
    os << "}\n";
  }

private:
  static StringRef shortName(StringRef qualified) {
    return qualified.rsplit('.').second.empty() ? qualified
                                                : qualified.rsplit('.').second;
  }

  std::string name(Value v) {
    std::string s;
    llvm::raw_string_ostream sos(s);
    v.printAsOperand(sos, state);
    return StringRef(s).drop_front().str(); // drop '%'
  }

  /// "Tensor", a module's class, or the MLIR type of other values.
  std::string kind(Type t) {
    if (isa<TensorType>(t))
      return "Tensor";
    if (auto m = dyn_cast<ModuleType>(t)) {
      auto top = graph->getParentOfType<mlir::ModuleOp>();
      if (auto mod = dyn_cast_or_null<traced::ModuleOp>(
              SymbolTable::lookupSymbolIn(top, m.getModuleName())))
        return shortName(mod.getClassName()).str();
    }
    std::string s;
    llvm::raw_string_ostream sos(s);
    sos << t;
    return s;
  }

  /// Call arguments; node names print bare, like Python variables.
  void printArgs(ArrayAttr arguments, ArrayAttr keywords, ValueRange args) {
    printPyCallArguments(os, arguments, keywords,
                         [&](unsigned i) { os << name(args[i]); });
  }

  void printExpr(Operation &op) {
    if (auto c = dyn_cast<ConstantOp>(op)) {
      os << "Constant(";
      if (isa<ElementsAttr>(c.getValue()))
        os << c.getType();
      else
        printPyValue(os, c.getValue());
      os << ") -> (" << kind(c.getType()) << ")";
      return;
    }
    if (auto g = dyn_cast<GetAttrOp>(op)) {
      os << "getattr(" << name(g.getReceiver()) << ", \"" << g.getName()
         << "\") -> (" << kind(g.getType()) << ")";
      return;
    }
    if (auto call = dyn_cast<CallMethodOp>(op)) {
      os << name(call.getReceiver());
      // TracedModule prints a module call as `linear(x)`.
      if (!(isa<ModuleType>(call.getReceiver().getType()) &&
            call.getMethod() == "forward"))
        os << "." << call.getMethod();
      printArgs(call.getArgumentsAttr(), call.getKeywordsAttr(),
                call.getArgs());
      return;
    }
    if (auto call = dyn_cast<CallFunctionOp>(op)) {
      os << call.getCallee();
      printArgs(call.getArgumentsAttr(), call.getKeywordsAttr(),
                call.getArgs());
      return;
    }
    os << op.getName();
  }

  GraphOp graph;
  llvm::raw_ostream &os;
  AsmState state;
};
} // namespace

void traced::printGraphText(GraphOp graph, llvm::raw_ostream &os) {
  GraphTextPrinter(graph, os).print();
}

LogicalResult traced::printGraphTexts(Operation *root, llvm::raw_ostream &os) {
  // The root module's graphs first, then the others in IR order.
  SmallVector<GraphOp> graphs, others;
  root->walk([&](GraphOp g) {
    (g->getParentOfType<traced::ModuleOp>().getRoot() ? graphs : others)
        .push_back(g);
  });
  graphs.append(others);
  for (auto [i, g] : llvm::enumerate(graphs)) {
    if (i)
      os << "\n";
    printGraphText(g, os);
  }
  return success();
}
