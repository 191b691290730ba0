//===- GraphDot.cpp - traced graphs as Graphviz pictures ------------------===//
//
// The picture follows values, not ops: a call's box has an edge from the
// box that made each of its operands. A submodule call drawn as a cluster
// binds the callee's inputs to the caller's producers and its outputs to
// the producers inside, so edges cross cluster borders as data does.
// Edges are written after every node, at the top level: an edge statement
// inside a `subgraph` would also make its endpoints members of it.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Translate/GraphDot.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Support/DType.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// A node that made a value, and the value's type (the edge's label).
struct Source {
  unsigned node;
  Type type;
};
using Sources = SmallVector<Source, 1>;

std::string escape(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

/// `[1, 64, 56, 56] float32` for tensors, the MLIR type otherwise.
std::string typeLabel(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    os << "[";
    llvm::interleaveComma(tensor.getShape(), os, [&](int64_t d) {
      if (ShapedType::isDynamic(d))
        os << "?";
      else
        os << d;
    });
    os << "] ";
    if (std::optional<DType> dtype = dtypeFromType(tensor.getElementType()))
      os << dtypeName(*dtype);
    else
      os << tensor.getElementType();
  } else {
    os << type;
  }
  return s;
}

StringRef lastComponent(StringRef qualified) {
  size_t dot = qualified.rfind('.');
  return dot == StringRef::npos ? qualified : qualified.drop_front(dot + 1);
}

/// `relu` for torch.nn.functional.relu, `aten.var.correction` for ATen
/// overloads (whose last component is the overload).
std::string calleeLabel(StringRef callee) {
  if (callee.consume_front("torch.ops."))
    return callee.str();
  return lastComponent(callee).str();
}

class DotWriter {
public:
  DotWriter(mlir::ModuleOp top, const DotOptions &options,
            llvm::raw_ostream &os)
      : top(top), options(options), os(os) {}

  LogicalResult write() {
    traced::ModuleOp root;
    top.walk([&](traced::ModuleOp m) {
      if (m.getRoot() && !root)
        root = m;
    });
    if (!root)
      return top.emitError("no root traced.module to draw");
    GraphOp forward = root.getForward();
    if (!forward)
      return root.emitError("the root module @")
             << root.getSymName() << " has no forward graph to draw";

    os << "digraph \"" << escape(root.getSymName()) << "\" {\n"
       << "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, "
          "label=\""
       << escape(root.getClassName()) << "\", labelloc=t];\n"
       << "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
          "fontname=\"Helvetica\", fontsize=10];\n"
       << "  edge [fontname=\"Helvetica\", fontsize=8];\n";
    SmallVector<Sources> inputs;
    for (unsigned i = 1, e = forward.getNumArguments(); i < e; ++i) {
      unsigned node = addNode({forward.getArgName(i).str()},
                              "shape=ellipse, fillcolor=\"#e8f0fe\"", "input",
                              1);
      inputs.push_back({{node, forward.getArgument(i).getType()}});
    }
    SmallVector<Sources> outputs;
    if (failed(emitGraph(forward, inputs, "", 1, 1, outputs)))
      return failure();
    unsigned out =
        addNode({"output"}, "shape=ellipse, fillcolor=\"#e8f0fe\"", "output", 1);
    for (const Sources &sources : outputs)
      addEdges(sources, out);
    for (auto &[from, to, label] : edges)
      os << "  n" << from << " -> n" << to << " [label=\"" << escape(label)
         << "\"];\n";
    os << "}\n";
    return success();
  }

private:
  unsigned addNode(ArrayRef<std::string> lines, StringRef style,
                   StringRef tooltip, unsigned indent) {
    unsigned id = nextNode++;
    os.indent(2 * indent) << "n" << id << " [label=\"";
    llvm::interleave(
        lines, os, [&](const std::string &l) { os << escape(l); }, "\\n");
    os << "\"";
    if (!style.empty())
      os << ", " << style;
    if (!tooltip.empty())
      os << ", tooltip=\"" << escape(tooltip) << "\"";
    os << "];\n";
    return id;
  }

  void addEdges(const Sources &sources, unsigned to) {
    for (const Source &s : sources) {
      auto edge = std::make_tuple(s.node, to, typeLabel(s.type));
      if (seenEdges.insert(edge).second)
        edges.push_back(edge);
    }
  }

  /// The traced.module a module-typed value is an instance of.
  traced::ModuleOp moduleOf(Value v) {
    auto type = dyn_cast<ModuleType>(v.getType());
    if (!type)
      return {};
    return dyn_cast_or_null<traced::ModuleOp>(
        SymbolTable::lookupSymbolIn(top, type.getModuleName()));
  }

  /// The attribute name a module value was read as, else its module's name.
  static std::string instanceName(Value receiver, traced::ModuleOp module) {
    if (auto get = receiver.getDefiningOp<GetAttrOp>())
      return get.getName().str();
    return module ? module.getSymName().str() : std::string("module");
  }

  /// The sources of each input of `callee` called with `call`'s arguments,
  /// bound the way the interpreter binds them (positional, then keywords
  /// by the graph's argument names); a list argument has every element's.
  SmallVector<Sources> bindInputs(CallMethodOp call, GraphOp callee,
                                  DenseMap<Value, Sources> &env) {
    unsigned inputs = callee.getNumArguments() - 1;
    SmallVector<Attribute> slots(inputs);
    ArrayRef<Attribute> arguments = call.getArgumentsAttr().getValue();
    ArrayAttr keywords = call.getKeywordsAttr();
    size_t positional = arguments.size() - keywords.size();
    for (size_t i = 0; i < positional && i < inputs; ++i)
      slots[i] = arguments[i];
    for (auto [i, name] : llvm::enumerate(keywords.getAsValueRange<StringAttr>()))
      for (unsigned a = 1; a <= inputs; ++a)
        if (callee.getArgName(a) == name)
          slots[a - 1] = arguments[positional + i];
    SmallVector<Sources> bound(inputs);
    OperandRange args = call.getArgs();
    for (unsigned i = 0; i < inputs; ++i) {
      if (!slots[i])
        continue;
      walkOperandMarkers(slots[i], [&](OperandAttr marker) {
        if (marker.getIndex() < args.size())
          llvm::append_range(bound[i], env.lookup(args[marker.getIndex()]));
      });
    }
    return bound;
  }

  /// Draws `graph`'s exprs with its inputs (after self) made by `inputs`;
  /// `outputs` gets the sources of each graph output.
  LogicalResult emitGraph(GraphOp graph, ArrayRef<Sources> inputs,
                          StringRef path, unsigned level, unsigned indent,
                          SmallVectorImpl<Sources> &outputs) {
    active.insert(graph);
    DenseMap<Value, Sources> env;
    for (auto [i, sources] : llvm::enumerate(inputs))
      env[graph.getArgument(i + 1)] = sources;
    auto setResults = [&](Operation *op, unsigned node) {
      for (Value r : op->getResults())
        env[r] = {{node, r.getType()}};
    };
    auto operandEdges = [&](Operation *op, unsigned node) {
      for (Value v : op->getOperands())
        addEdges(env.lookup(v), node);
    };

    for (Operation &op : graph.getBody().front()) {
      if (auto output = dyn_cast<OutputOp>(op)) {
        for (Value v : output.getResults())
          outputs.push_back(env.lookup(v));
        continue;
      }
      if (auto get = dyn_cast<GetAttrOp>(op)) {
        if (options.params && isa<TensorType>(get.getType()))
          setResults(&op, addNode({get.getName().str()},
                                  "shape=ellipse, fillcolor=\"#eeeeee\"",
                                  "getattr", indent));
        continue;
      }
      if (auto c = dyn_cast<ConstantOp>(op)) {
        if (options.params && isa<TensorType>(c.getType()))
          setResults(&op, addNode({"constant"},
                                  "shape=ellipse, fillcolor=\"#eeeeee\"",
                                  "constant", indent));
        continue;
      }
      if (auto call = dyn_cast<CallMethodOp>(op)) {
        if (traced::ModuleOp module = moduleOf(call.getReceiver())) {
          if (failed(emitModuleCall(call, module, env, path, level, indent)))
            return failure();
          continue;
        }
        unsigned node = addNode({"." + call.getMethod().str()}, "",
                                ("Tensor." + call.getMethod()).str(), indent);
        operandEdges(&op, node);
        setResults(&op, node);
        continue;
      }
      if (auto call = dyn_cast<CallFunctionOp>(op)) {
        unsigned node = addNode({calleeLabel(call.getCallee())}, "",
                                call.getCallee(), indent);
        operandEdges(&op, node);
        setResults(&op, node);
        continue;
      }
      unsigned node = addNode({op.getName().getStringRef().str()}, "",
                              op.getName().getStringRef(), indent);
      operandEdges(&op, node);
      setResults(&op, node);
    }
    active.erase(graph);
    return success();
  }

  LogicalResult emitModuleCall(CallMethodOp call, traced::ModuleOp module,
                               DenseMap<Value, Sources> &env, StringRef path,
                               unsigned level, unsigned indent) {
    std::string name = instanceName(call.getReceiver(), module);
    std::string childPath = path.empty() ? name : (path + "." + name).str();
    StringRef className = lastComponent(module.getClassName());
    auto callee = dyn_cast_or_null<GraphOp>(
        SymbolTable::lookupSymbolIn(module, call.getMethodAttr()));
    bool expand = callee && (options.depth == 0 || level < options.depth) &&
                  !active.contains(callee);
    if (expand) {
      SmallVector<Sources> inputs = bindInputs(call, callee, env);
      os.indent(2 * indent) << "subgraph cluster_" << nextCluster++ << " {\n";
      os.indent(2 * indent + 2)
          << "label=\"" << escape(childPath) << ": " << escape(className)
          << (call.getMethod() == "forward"
                  ? std::string()
                  : ("." + call.getMethod()).str())
          << "\"; tooltip=\"" << escape(module.getClassName())
          << "\"; style=\"rounded,filled\"; fillcolor=\""
          << (level % 2 ? "#f6f6f6" : "#ebebeb") << "\"; color=\"#999999\";\n";
      SmallVector<Sources> outputs;
      if (failed(emitGraph(callee, inputs, childPath, level + 1, indent + 1,
                           outputs)))
        return failure();
      os.indent(2 * indent) << "}\n";
      if (outputs.size() != call.getNumResults())
        return call.emitError("the call of @")
               << module.getSymName() << "::" << call.getMethod()
               << " has " << call.getNumResults()
               << " result(s), but the graph returns " << outputs.size();
      for (auto [r, sources] : llvm::zip(call.getResults(), outputs))
        env[r] = sources;
      return success();
    }
    // The cluster around says where; the tooltip has the whole path.
    SmallVector<std::string> lines = {name, className.str()};
    if (call.getMethod() != "forward")
      lines.back() += "." + call.getMethod().str();
    if (options.params && module.isLeaf()) {
      for (Operation &decl : module.getBody().front()) {
        Type type;
        StringRef declName;
        if (auto p = dyn_cast<ParameterOp>(decl)) {
          type = p.getType();
          declName = p.getSymName();
        } else if (auto b = dyn_cast<BufferOp>(decl)) {
          type = b.getType();
          declName = b.getSymName();
        } else {
          continue;
        }
        lines.push_back((declName + " " + typeLabel(type)).str());
      }
    }
    // A traced submodule drawn as one box looks like a stack of boxes.
    unsigned node = addNode(
        lines,
        callee ? "shape=box3d, style=filled, fillcolor=\"#fff4d6\""
               : "fillcolor=\"#dff3e4\"",
        (childPath + ": " + module.getClassName()).str(), indent);
    for (Value v : call.getArgs())
      addEdges(env.lookup(v), node);
    for (Value r : call.getResults())
      env[r] = {{node, r.getType()}};
    return success();
  }

  mlir::ModuleOp top;
  const DotOptions &options;
  llvm::raw_ostream &os;
  unsigned nextNode = 0, nextCluster = 0;
  llvm::DenseSet<Operation *> active;
  std::vector<std::tuple<unsigned, unsigned, std::string>> edges;
  std::set<std::tuple<unsigned, unsigned, std::string>> seenEdges;
};
} // namespace

LogicalResult traced::printGraphDot(Operation *root, const DotOptions &options,
                                    llvm::raw_ostream &os) {
  auto top = dyn_cast<mlir::ModuleOp>(root);
  if (!top)
    return root->emitOpError("expected a builtin module to draw");
  return DotWriter(top, options, os).write();
}
