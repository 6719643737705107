//===- IRBuilder.cpp - the IR builder the Python DSL drives ---------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// `_argus.Builder` builds one kernel (a module with one func.func) op by op,
// as Triton's semantic layer drives its `ir.builder`: the DSL calls one
// method per op with value handles and its Python source location, and the
// method builds the op through its ODS builder. Ops with attributes have a
// method each (so the attributes' names and kinds are those of ArgusOps.td,
// checked by the compiler); ops without attributes go through `op(name,
// operands, result_types, loc)`. Types are parsed once per distinct text.
//
// Nothing here verifies an op: `finish()` runs the op verifiers on the whole
// module, whose diagnostics point at the Python lines the locations name.
// Inputs that cannot make an op at all (an unknown op name, a type or layout
// that does not parse, a value of another kernel, a body left open) raise
// `_argus.BuildError(message, [Diagnostic])` at the op's location.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Layout/Parse.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/eval.h>
#include <pybind11/stl.h>

#include <optional>

namespace py = pybind11;
using namespace mlir;

namespace argus::python {
namespace {

/// `_argus.BuildError`, set when the module is initialised.
py::object &buildErrorType() {
  static py::object *type = new py::object();
  return *type;
}

/// Raises BuildError(message, diagnostics).
[[noreturn]] void raiseBuildError(const std::string &message,
                                  std::vector<PyDiagnostic> diags) {
  PyErr_SetObject(buildErrorType().ptr(),
                  py::make_tuple(message, py::cast(diags)).ptr());
  throw py::error_already_set();
}

class IRBuilder {
public:
  IRBuilder(std::shared_ptr<ArgusCtx> ctx, const std::string &name,
            const std::vector<int64_t> &block, const std::string &target,
            const std::string &file, unsigned line, unsigned col,
            const std::vector<int64_t> &cluster)
      : ctx(std::move(ctx)), b(this->ctx->get()) {
    MLIRContext *mctx = this->ctx->get();
    mctx->loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                      scf::SCFDialect, mlir::argus::ArgusDialect>();
    Location loc = FileLineColLoc::get(mctx, file, line, col);
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    func = func::FuncOp::create(b, loc, name, b.getFunctionType({}, {}));
    // The attribute's own verifier (block shape, known target) judges the
    // launch, with the kernel's location.
    std::vector<PyDiagnostic> diags;
    if (failed(collected(mctx, diags, [&] {
          return mlir::argus::KernelAttr::verify([&] { return emitError(loc); },
                                                 block, target, cluster);
        })))
      raiseBuildError("invalid kernel launch" + firstReason(diags), diags);
    auto kernel = mlir::argus::KernelAttr::get(mctx, block, target, cluster);
    func->setAttr("argus.kernel", kernel);
    b.setInsertionPointToEnd(func.addEntryBlock());
  }

  //===--------------------------------------------------------------------===//
  // Locations, types, arguments
  //===--------------------------------------------------------------------===//

  Location loc(const std::string &file, unsigned line, unsigned col,
               const std::string &name) {
    Location l = FileLineColLoc::get(ctx->get(), file, line, col);
    if (!name.empty())
      l = NameLoc::get(b.getStringAttr(name), l);
    return l;
  }

  Type type(const std::string &text, Location at) {
    auto it = types.find(text);
    if (it != types.end())
      return it->second;
    std::vector<PyDiagnostic> inner;
    Type t = collected(ctx->get(), inner,
                       [&] { return mlir::parseType(text, ctx->get()); });
    if (!t)
      fail(at, "invalid type '" + text + "'" + firstReason(inner));
    types[text] = t;
    return t;
  }

  /// A kernel argument; `access` ("in", "out", "inout" or "" for none) is
  /// its declared role (the `argus.access` argument attribute).
  Value argument(Type t, Location at, const std::string &access) {
    live(at);
    Block &entry = func.getBody().front();
    Value v = entry.addArgument(t, at);
    if (!access.empty())
      accesses.push_back({entry.getNumArguments() - 1, access});
    return v;
  }

  //===--------------------------------------------------------------------===//
  // Ops without attributes
  //===--------------------------------------------------------------------===//

  std::vector<Value> op(const std::string &name,
                        const std::vector<Value> &operands,
                        const std::vector<Type> &resultTypes, Location at,
                        const std::vector<std::string> &unitAttrs) {
    live(at);
    std::optional<RegisteredOperationName> info =
        RegisteredOperationName::lookup(name, ctx->get());
    if (!info)
      fail(at, "unknown operation '" + name + "'");
    checkOperands(operands, at);
    OperationState state(at, *info);
    state.addOperands(operands);
    state.addTypes(resultTypes);
    for (const std::string &a : unitAttrs)
      state.addAttribute(a, b.getUnitAttr());
    Operation *created = b.create(state);
    return {created->result_begin(), created->result_end()};
  }

  //===--------------------------------------------------------------------===//
  // Index arithmetic and the launch
  //===--------------------------------------------------------------------===//

  Value constantIndex(int64_t v, Location at) {
    live(at);
    return arith::ConstantIndexOp::create(b, at, v);
  }

  Value cmpi(const std::string &pred, Value lhs, Value rhs, Location at) {
    checkOperands({lhs, rhs}, at);
    std::optional<arith::CmpIPredicate> p = arith::symbolizeCmpIPredicate(pred);
    if (!p)
      fail(at, "unknown integer comparison '" + pred + "'");
    return arith::CmpIOp::create(b, at, *p, lhs, rhs);
  }

  Value gpuIndex(const std::string &kind, const std::string &dim, Location at) {
    live(at);
    std::optional<gpu::Dimension> d = gpu::symbolizeDimension(dim);
    if (!d)
      fail(at, "unknown dimension '" + dim + "' (x, y or z)");
    if (kind == "block_id")
      return gpu::BlockIdOp::create(b, at, *d);
    if (kind == "grid_dim")
      return gpu::GridDimOp::create(b, at, *d);
    if (kind == "thread_id")
      return gpu::ThreadIdOp::create(b, at, *d);
    if (kind == "cluster_id")
      return gpu::ClusterIdOp::create(b, at, *d);
    if (kind == "cluster_block_id")
      return gpu::ClusterBlockIdOp::create(b, at, *d);
    if (kind == "cluster_dim")
      return gpu::ClusterDimOp::create(b, at, *d);
    fail(at, "unknown launch index '" + kind + "'");
  }

  void assume(Value cond, const std::string &message, Location at) {
    checkOperands({cond}, at);
    mlir::argus::AssumeOp::create(b, at, cond, b.getStringAttr(message));
  }

  void assumeIndices(Value tensor, Value bound, bool distinct,
                     const std::string &message, Location at) {
    checkOperands({tensor, bound}, at);
    mlir::argus::AssumeIndicesOp::create(b, at, tensor, bound, distinct,
                                         b.getStringAttr(message));
  }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  Value view(const std::string &name, Value tensor,
             const std::vector<Value> &offsets, bool clipped,
             const std::vector<Value> &bounds, Type result, Location at) {
    checkOperands({tensor}, at);
    checkOperands(offsets, at);
    checkOperands(bounds, at);
    return mlir::argus::ViewOp::create(
        b, at, result, b.getStringAttr(name), tensor, offsets,
        clipped ? b.getUnitAttr() : UnitAttr(), bounds);
  }

  Value gatherView(const std::string &name, Value tensor, Value indices,
                   Value col, Type result, Location at) {
    checkOperands({tensor, indices, col}, at);
    return mlir::argus::GatherViewOp::create(
        b, at, result, b.getStringAttr(name), tensor, indices, col);
  }

  Value im2colView(const std::string &name, Value tensor, Value row, Value col,
                   const std::vector<int64_t> &window,
                   const std::vector<int64_t> &stride,
                   const std::vector<int64_t> &pad,
                   const std::vector<int64_t> &dilation, Type result,
                   Location at) {
    checkOperands({tensor, row, col}, at);
    return mlir::argus::Im2colViewOp::create(
        b, at, result, b.getStringAttr(name), tensor, row, col,
        b.getDenseI64ArrayAttr(window), b.getDenseI64ArrayAttr(stride),
        b.getDenseI64ArrayAttr(pad), b.getDenseI64ArrayAttr(dilation));
  }

  Value alloc(const std::string &name, Type result, Location at) {
    live(at);
    return mlir::argus::AllocOp::create(b, at, result, b.getStringAttr(name));
  }

  void copy(bool async, Value src, Value dst, const std::string &threads,
            Location at) {
    checkOperands({src, dst}, at);
    mlir::argus::LayoutAttr layout = layoutAttr(threads, at);
    if (async)
      mlir::argus::CopyAsyncOp::create(b, at, src, dst, layout);
    else
      mlir::argus::CopyOp::create(b, at, src, dst, layout);
  }

  Value load(Value src, Type result, py::object other, Location at) {
    checkOperands({src}, at);
    TypedAttr otherAttr;
    if (!other.is_none()) {
      Type elem = elementType(src.getType());
      if (auto ft = dyn_cast_or_null<FloatType>(elem))
        otherAttr = b.getFloatAttr(ft, other.cast<double>());
      else if (elem && elem.isIntOrIndex())
        otherAttr = b.getIntegerAttr(elem, other.cast<int64_t>());
      else
        fail(at, "`other` needs a tile of numbers");
    }
    return mlir::argus::LoadOp::create(b, at, result, src, otherAttr);
  }

  void store(Value value, Value dest, const std::string &atomic, Location at) {
    checkOperands({value, dest}, at);
    mlir::argus::AtomicKindAttr kind;
    if (!atomic.empty()) {
      std::optional<mlir::argus::AtomicKind> k =
          mlir::argus::symbolizeAtomicKind(atomic);
      if (!k)
        fail(at, "unknown atomic kind '" + atomic + "' (add, max or min)");
      kind = mlir::argus::AtomicKindAttr::get(ctx->get(), *k);
    }
    mlir::argus::StoreOp::create(b, at, value, dest, kind);
  }

  void waitGroup(int64_t pending, Location at) {
    live(at);
    mlir::argus::WaitGroupOp::create(b, at, b.getI64IntegerAttr(pending));
  }

  //===--------------------------------------------------------------------===//
  // Compute
  //===--------------------------------------------------------------------===//

  Value mma(bool async, const std::string &instr, Value a, Value bv, Value acc,
            Location at) {
    checkOperands({a, bv, acc}, at);
    if (async)
      return mlir::argus::MmaAsyncOp::create(
          b, at, acc.getType(), b.getStringAttr(instr), a, bv, acc);
    return mlir::argus::MmaOp::create(b, at, acc.getType(),
                                      b.getStringAttr(instr), a, bv, acc);
  }

  Value cmp(const std::string &pred, Value lhs, Value rhs, Type result,
            Location at) {
    checkOperands({lhs, rhs}, at);
    std::optional<mlir::argus::CmpPredicate> p =
        mlir::argus::symbolizeCmpPredicate(pred);
    if (!p)
      fail(at, "unknown comparison '" + pred + "'");
    return mlir::argus::CmpOp::create(
        b, at, result, mlir::argus::CmpPredicateAttr::get(ctx->get(), *p), lhs,
        rhs);
  }

  Value iota(int64_t dim, Type result, Location at) {
    live(at);
    return mlir::argus::IotaOp::create(b, at, result, b.getI64IntegerAttr(dim));
  }

  Value fill(double value, Type result, Location at) {
    live(at);
    return mlir::argus::FillOp::create(b, at, result, b.getF64FloatAttr(value));
  }

  Value scale(Value x, double factor, Location at) {
    checkOperands({x}, at);
    return mlir::argus::ScaleOp::create(b, at, x.getType(), x,
                                        b.getF64FloatAttr(factor));
  }

  Value reduce(bool scan, const std::string &kind, Value x, int64_t dim,
               Type result, Location at) {
    checkOperands({x}, at);
    std::optional<mlir::argus::ReduceKind> k =
        mlir::argus::symbolizeReduceKind(kind);
    if (!k)
      fail(at, "unknown reduction '" + kind + "' (sum, max, min or prod)");
    auto kindAttr = mlir::argus::ReduceKindAttr::get(ctx->get(), *k);
    if (scan)
      return mlir::argus::ScanOp::create(b, at, result, kindAttr, x,
                                         b.getI64IntegerAttr(dim));
    return mlir::argus::ReduceOp::create(b, at, result, kindAttr, x,
                                         b.getI64IntegerAttr(dim));
  }

  Value broadcast(Value x, int64_t dim, Type result, Location at) {
    checkOperands({x}, at);
    return mlir::argus::BroadcastOp::create(b, at, result, x,
                                            b.getI64IntegerAttr(dim));
  }

  //===--------------------------------------------------------------------===//
  // Hopper
  //===--------------------------------------------------------------------===//

  Value tensorMap(const std::string &name, Value tensor, Type result,
                  Location at) {
    checkOperands({tensor}, at);
    return mlir::argus::TensorMapOp::create(b, at, result,
                                            b.getStringAttr(name), tensor);
  }

  Value mbarrierAlloc(const std::string &name, int64_t arrivals, Type result,
                      Location at) {
    live(at);
    return mlir::argus::MBarrierAllocOp::create(
        b, at, result, b.getStringAttr(name), b.getI64IntegerAttr(arrivals));
  }

  void arriveExpectTx(Value ring, Value stage, int64_t bytes, Location at) {
    checkOperands({ring, stage}, at);
    mlir::argus::MBarrierArriveExpectTxOp::create(b, at, ring, stage,
                                                  b.getI64IntegerAttr(bytes));
  }

  void namedBarrier(bool sync, Value slot, int64_t threads, Location at) {
    checkOperands({slot}, at);
    if (sync)
      mlir::argus::NamedBarrierSyncOp::create(b, at, slot,
                                              b.getI64IntegerAttr(threads));
    else
      mlir::argus::NamedBarrierArriveOp::create(b, at, slot,
                                                b.getI64IntegerAttr(threads));
  }

  void tmaStoreWait(int64_t pending, Location at) {
    live(at);
    mlir::argus::TmaStoreWaitOp::create(b, at, b.getI64IntegerAttr(pending));
  }

  std::vector<Value> wgmmaWait(int64_t pending,
                               const std::vector<Value> &values, Location at) {
    checkOperands(values, at);
    SmallVector<Type> types;
    for (Value v : values)
      types.push_back(v.getType());
    auto op = mlir::argus::WgmmaWaitOp::create(
        b, at, types, b.getI64IntegerAttr(pending), values);
    return {op->result_begin(), op->result_end()};
  }

  //===--------------------------------------------------------------------===//
  // Regions and tags
  //===--------------------------------------------------------------------===//

  void regionBegin(const std::string &name, int64_t id, Location at) {
    live(at);
    mlir::argus::RegionBeginOp::create(b, at, b.getStringAttr(name),
                                       b.getI64IntegerAttr(id));
  }

  void regionEnd(int64_t id, Location at) {
    live(at);
    mlir::argus::RegionEndOp::create(b, at, b.getI64IntegerAttr(id));
  }

  Value tag(Value x, const std::vector<Value> &symbols,
            const std::vector<std::string> &fields, const std::string &map,
            Location at) {
    checkOperands({x}, at);
    checkOperands(symbols, at);
    std::vector<PyDiagnostic> inner;
    auto mapAttr =
        dyn_cast_or_null<AffineMapAttr>(collected(ctx->get(), inner, [&] {
          return mlir::parseAttribute("affine_map<" + map + ">", ctx->get());
        }));
    if (!mapAttr)
      fail(at, "invalid tag map '" + map + "'" + firstReason(inner));
    SmallVector<StringRef> names(fields.begin(), fields.end());
    return mlir::argus::TagOp::create(b, at, x.getType(), x, symbols,
                                      b.getStrArrayAttr(names), mapAttr);
  }

  void tagAssert(std::optional<Value> subject, const std::string &predicate,
                 Location at) {
    live(at);
    if (subject)
      checkOperands({*subject}, at);
    mlir::argus::TagAssertOp::create(b, at, subject ? *subject : Value(),
                                     b.getStringAttr(predicate));
  }

  /// The tag fields `value` carries as the tag-assertion verifier infers
  /// them (inferTagFields), or None when they cannot be determined.
  std::optional<std::vector<std::string>> tagFields(Value value) {
    live();
    std::optional<std::set<std::string>> fields =
        mlir::argus::inferTagFields(value);
    if (!fields)
      return std::nullopt;
    return std::vector<std::string>(fields->begin(), fields->end());
  }

  void reduced(Value acc, const std::string &field, Value lo, Value hi,
               Location at) {
    checkOperands({acc, lo, hi}, at);
    mlir::argus::ReducedOp::create(b, at, acc, b.getStringAttr(field), lo, hi);
  }

  //===--------------------------------------------------------------------===//
  // Ops with a body: the builder enters the body; end() leaves it
  //===--------------------------------------------------------------------===//

  /// scf.for: returns the induction variable and the iteration arguments.
  std::vector<Value> beginFor(Value lo, Value hi, Value step,
                              const std::vector<Value> &inits, Location at,
                              Location ivLoc,
                              const std::vector<Location> &argLocs) {
    checkOperands({lo, hi, step}, at);
    checkOperands(inits, at);
    if (argLocs.size() != inits.size())
      fail(at, "one location per loop-carried value is needed");
    auto loop = scf::ForOp::create(b, at, lo, hi, step, inits);
    Block *body = loop.getBody();
    body->getArgument(0).setLoc(ivLoc);
    for (auto [arg, l] : llvm::zip(loop.getRegionIterArgs(), argLocs))
      arg.setLoc(l);
    enter(loop, body);
    return {body->args_begin(), body->args_end()};
  }

  void beginIf(Value cond, Location at) {
    checkOperands({cond}, at);
    auto op = scf::IfOp::create(b, at, cond, /*withElseRegion=*/false);
    enter(op, op.thenBlock());
  }

  void beginRole(const std::string &name, int64_t firstWarp, int64_t endWarp,
                 std::optional<int64_t> regs, Location at) {
    live(at);
    auto role = mlir::argus::RoleOp::create(
        b, at, b.getStringAttr(name), b.getI64IntegerAttr(firstWarp),
        b.getI64IntegerAttr(endWarp),
        regs ? b.getI64IntegerAttr(*regs) : IntegerAttr());
    enter(role, &role.getBody().emplaceBlock());
  }

  void yield(const std::vector<Value> &values, Location at) {
    checkOperands(values, at);
    if (open.empty() || !isa<scf::ForOp>(open.back().op))
      fail(at, "scf.yield outside a loop body");
    scf::YieldOp::create(b, at, values);
  }

  /// Leaves the innermost body; returns its op's results.
  std::vector<Value> end() {
    live();
    if (open.empty())
      fail(func.getLoc(), "end() without an open body");
    Open top = open.pop_back_val();
    Block *body = b.getInsertionBlock();
    bool terminated =
        !body->empty() && body->back().hasTrait<OpTrait::IsTerminator>();
    if (!terminated && !top.op->hasTrait<OpTrait::NoTerminator>())
      fail(top.op->getLoc(), "the body of '" +
                                 top.op->getName().getStringRef().str() +
                                 "' has no terminator");
    b.restoreInsertionPoint(top.saved);
    return {top.op->result_begin(), top.op->result_end()};
  }

  //===--------------------------------------------------------------------===//
  // The module
  //===--------------------------------------------------------------------===//

  /// Closes the kernel and runs the op verifiers: (Module, diagnostics);
  /// the module is returned even when they report errors (so that it can be
  /// printed). The builder cannot be used afterwards.
  py::tuple finish(Location returnLoc) {
    live(returnLoc);
    if (!open.empty())
      fail(open.back().op->getLoc(),
           "the body of '" + open.back().op->getName().getStringRef().str() +
               "' is still open");
    func::ReturnOp::create(b, returnLoc);
    func.setType(
        b.getFunctionType(func.getBody().front().getArgumentTypes(), {}));
    for (auto &[index, access] : accesses)
      func.setArgAttr(index, "argus.access", b.getStringAttr(access));
    finished = true;
    std::vector<PyDiagnostic> diags;
    (void)collected(ctx->get(), diags, [&] { return mlir::verify(*module); });
    return py::make_tuple(wrapModule(ctx, std::move(module)), diags);
  }

private:
  struct Open {
    Operation *op;
    OpBuilder::InsertPoint saved;
  };

  [[noreturn]] void fail(Location at, const std::string &message) {
    std::vector<PyDiagnostic> diags;
    (void)collected(ctx->get(), diags, [&] {
      emitError(at) << message;
      return true;
    });
    raiseBuildError(message, diags);
  }

  /// The builder is still open: its kernel's trace has not finished (a
  /// value kept from a finished trace builds nothing more).
  void live(std::optional<Location> at = std::nullopt) {
    if (!finished)
      return;
    std::string message =
        "this value belongs to a kernel whose trace has finished; hint: "
        "values live only in the kernel trace that made them";
    if (at)
      fail(*at, message);
    raiseBuildError(message, {});
  }

  /// Every operand must be a value of this kernel: a value of another
  /// kernel (kept from an earlier trace) would tie two modules together.
  void checkOperands(const std::vector<Value> &values, Location at) {
    live(at);
    for (Value v : values) {
      if (!v)
        fail(at, "a null value cannot be an operand");
      Operation *owner = isa<BlockArgument>(v)
                             ? cast<BlockArgument>(v).getOwner()->getParentOp()
                             : v.getDefiningOp();
      if (!owner || (owner != func.getOperation() &&
                     owner->getParentOfType<func::FuncOp>() != func))
        fail(at, "a value of another kernel (or of an earlier trace) is used "
                 "here; hint: values live only in the kernel trace that "
                 "made them");
    }
  }

  void enter(Operation *op, Block *body) {
    open.push_back({op, b.saveInsertionPoint()});
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      b.setInsertionPoint(&body->back());
    else
      b.setInsertionPointToEnd(body);
  }

  mlir::argus::LayoutAttr layoutAttr(const std::string &text, Location at) {
    llvm::Expected<::argus::layout::SwizzledLayout> layout =
        ::argus::layout::parseLayout(text);
    if (!layout)
      fail(at, "invalid layout \"" + text +
                   "\": " + llvm::toString(layout.takeError()) +
                   "; hint: write CuTe notation such as "
                   "\"(4,(2,8)):(2,(1,8))\" or \"Sw<3,4,3> o (8,64):(64,1)\"");
    return mlir::argus::LayoutAttr::get(ctx->get(), *layout);
  }

  static Type elementType(Type t) {
    if (auto tile = dyn_cast<mlir::argus::TileType>(t))
      return tile.getElementType();
    return {};
  }

  std::shared_ptr<ArgusCtx> ctx;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  SmallVector<Open> open;
  llvm::StringMap<Type> types;
  /// Declared roles of tensor arguments (argument index, "in" / "out" /
  /// "inout"), set on the function once its type is final.
  std::vector<std::pair<unsigned, std::string>> accesses;
  bool finished = false;
};

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

} // namespace

void bindIRBuilder(py::module_ &m) {
  // args are (message, [Diagnostic]); str() is the message, not the tuple.
  // (The DSL raises the ArgusError of the first diagnostic's kind from it.)
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  scope["__name__"] = "_argus";
  py::exec(R"(
class BuildError(Exception):
    """An op, type or launch the IR builder could not make at all; args are
    (message, [Diagnostic])."""
    def __str__(self):
        return str(self.args[0]) if self.args else ""
)",
           scope);
  buildErrorType() = scope["BuildError"];
  m.attr("BuildError") = buildErrorType();

  py::class_<Value>(m, "Value", "an SSA value of a kernel being built")
      .def_property_readonly("type",
                             [](Value v) { return typeText(v.getType()); })
      .def("__repr__", [](Value v) {
        return "<Value of type " + typeText(v.getType()) + ">";
      });
  py::class_<Type>(m, "Type")
      .def("__str__", &typeText)
      .def("__eq__", [](Type a, Type c) { return a == c; })
      .def("__hash__", [](Type t) { return (size_t)hash_value(t); });
  py::class_<Location>(m, "Location").def("__str__", [](Location l) {
    std::string s;
    llvm::raw_string_ostream(s) << l;
    return s;
  });

  using B = IRBuilder;
  py::class_<B, std::shared_ptr<B>>(
      m, "Builder",
      "builds one kernel op by op (IRBuilder.cpp); finish() verifies it")
      .def(py::init<std::shared_ptr<ArgusCtx>, std::string,
                    std::vector<int64_t>, std::string, std::string, unsigned,
                    unsigned, std::vector<int64_t>>(),
           py::arg("context"), py::arg("name"), py::arg("block"),
           py::arg("target"), py::arg("file"), py::arg("line"), py::arg("col"),
           py::arg("cluster") = std::vector<int64_t>())
      .def("loc", &B::loc, py::arg("file"), py::arg("line"), py::arg("col"),
           py::arg("name") = "")
      .def("type", &B::type, py::arg("text"), py::arg("loc"))
      .def("argument", &B::argument, py::arg("type"), py::arg("at"),
           py::arg("access") = "")
      .def("op", &B::op, py::arg("name"), py::arg("operands"),
           py::arg("result_types"), py::arg("loc"),
           py::arg("unit_attrs") = std::vector<std::string>())
      .def("constant_index", &B::constantIndex)
      .def("cmpi", &B::cmpi)
      .def("gpu_index", &B::gpuIndex)
      .def("assume", &B::assume)
      .def("assume_indices", &B::assumeIndices)
      .def("view", &B::view)
      .def("gather_view", &B::gatherView)
      .def("im2col_view", &B::im2colView)
      .def("alloc", &B::alloc)
      .def("copy", &B::copy)
      .def("load", &B::load)
      .def("store", &B::store)
      .def("wait_group", &B::waitGroup)
      .def("mma", &B::mma)
      .def("cmp", &B::cmp)
      .def("iota", &B::iota)
      .def("fill", &B::fill)
      .def("scale", &B::scale)
      .def("reduce", &B::reduce)
      .def("broadcast", &B::broadcast)
      .def("tensor_map", &B::tensorMap)
      .def("mbarrier_alloc", &B::mbarrierAlloc)
      .def("arrive_expect_tx", &B::arriveExpectTx)
      .def("named_barrier", &B::namedBarrier)
      .def("tma_store_wait", &B::tmaStoreWait)
      .def("wgmma_wait", &B::wgmmaWait)
      .def("region_begin", &B::regionBegin)
      .def("region_end", &B::regionEnd)
      .def("tag", &B::tag)
      .def("tag_assert", &B::tagAssert)
      .def("tag_fields", &B::tagFields)
      .def("reduced", &B::reduced)
      .def("begin_for", &B::beginFor)
      .def("begin_if", &B::beginIf)
      .def("begin_role", &B::beginRole)
      .def("yield_", &B::yield)
      .def("end", &B::end)
      .def("finish", &B::finish, py::arg("return_loc"));
}

} // namespace argus::python
