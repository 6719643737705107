//===- GridRule.cpp - the grid a launch of a kernel must use --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/GridRule.h"
#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

/// Builds extent expressions (GridRule.h) for one kernel.
class RuleBuilder {
public:
  explicit RuleBuilder(func::FuncOp kernel)
      : kernel(kernel), b(kernel.getContext()) {}

  Attribute constant(int64_t c) { return b.getI64IntegerAttr(c); }

  Attribute node(StringRef op, Attribute lhs, Attribute rhs) {
    auto l = dyn_cast<IntegerAttr>(lhs), r = dyn_cast<IntegerAttr>(rhs);
    if (l && r) { // fold what stays exact and in range
      int64_t x = l.getInt(), y = r.getInt();
      std::optional<int64_t> folded;
      if (op == "add")
        folded = llvm::checkedAdd(x, y);
      else if (op == "mul")
        folded = llvm::checkedMul(x, y);
      else if (op == "sub" && x >= y)
        folded = x - y;
      else if (op == "max")
        folded = std::max(x, y);
      if (folded)
        return constant(*folded);
    }
    if (r && r.getInt() == 1 && (op == "mul" || op == "div" || op == "ceildiv"))
      return lhs;
    if (l && l.getInt() == 1 && op == "mul")
      return rhs;
    return b.getDictionaryAttr(b.getNamedAttr(op, b.getArrayAttr({lhs, rhs})));
  }

  /// `v` as an expression a host evaluates from the launch's arguments
  /// (constants, integer arguments, tensor sizes and arithmetic on them);
  /// null when it depends on anything else (ids, loaded values).
  Attribute hostExpr(Value v, int depth = 0) {
    if (depth > 32)
      return {};
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &kernel.getBody().front() ||
          !isa<IndexType, IntegerType>(arg.getType()))
        return {};
      return b.getDictionaryAttr(
          b.getNamedAttr("arg", b.getI64IntegerAttr(arg.getArgNumber())));
    }
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.isNegative() || c.getActiveBits() > 62
                 ? Attribute()
                 : constant(int64_t(c.getZExtValue()));
    Operation *op = v.getDefiningOp();
    if (!op)
      return {};
    if (auto dim = dyn_cast<memref::DimOp>(op)) {
      auto src = dyn_cast<BlockArgument>(dim.getSource());
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!src || src.getOwner() != &kernel.getBody().front() || !index)
        return {};
      return b.getDictionaryAttr(b.getNamedAttr(
          "size",
          b.getArrayAttr({constant(src.getArgNumber()), constant(*index)})));
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
            arith::ExtSIOp>(op))
      return hostExpr(op->getOperand(0), depth + 1);
    StringRef name =
        TypeSwitch<Operation *, StringRef>(op)
            .Case<arith::AddIOp>([](auto) { return "add"; })
            .Case<arith::SubIOp>([](auto) { return "sub"; })
            .Case<arith::MulIOp>([](auto) { return "mul"; })
            .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
                [](auto) { return "div"; })
            .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>(
                [](auto) { return "ceildiv"; })
            .Case<arith::MaxUIOp, arith::MaxSIOp>([](auto) { return "max"; })
            .Default([](Operation *) { return ""; });
    if (name.empty())
      return {};
    Attribute lhs = hostExpr(op->getOperand(0), depth + 1);
    Attribute rhs = lhs ? hostExpr(op->getOperand(1), depth + 1) : Attribute();
    return rhs ? node(name, lhs, rhs) : Attribute();
  }

  /// When `v` is `grid_dim.d * m` (m a host expression; 1 for grid_dim.d
  /// itself), m.
  Attribute gridFactor(Value v, gpu::Dimension d, int depth = 0) {
    Operation *op = v.getDefiningOp();
    if (!op || depth > 8)
      return {};
    if (auto g = dyn_cast<gpu::GridDimOp>(op))
      return g.getDimension() == d ? constant(1) : Attribute();
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp>(op))
      return gridFactor(op->getOperand(0), d, depth + 1);
    if (!isa<arith::MulIOp>(op))
      return {};
    for (unsigned i : {0u, 1u})
      if (Attribute f = gridFactor(op->getOperand(i), d, depth + 1))
        if (Attribute m = hostExpr(op->getOperand(1 - i)))
          return node("mul", f, m);
    return {};
  }

  MLIRContext *getContext() { return b.getContext(); }
  Builder &builder() { return b; }

private:
  func::FuncOp kernel;
  Builder b;
};

/// The predicate of `b pred' a` for `a pred b`.
arith::CmpIPredicate swapOperands(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  default:
    return p; // eq, ne
  }
}

/// The atoms of a conjunction: the comparisons an `argus.assume` states.
void collectComparisons(Value cond, SmallVectorImpl<arith::CmpIOp> &out,
                        int depth = 0) {
  Operation *op = cond.getDefiningOp();
  if (!op || depth > 32)
    return;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    out.push_back(cmp);
  else if (isa<arith::AndIOp>(op))
    for (Value v : op->getOperands())
      collectComparisons(v, out, depth + 1);
}

} // namespace

ArrayAttr mlir::argus::gridRule(func::FuncOp kernel) {
  RuleBuilder rb(kernel);
  Builder &b = rb.builder();
  SmallVector<Attribute, 3> dims;
  for (gpu::Dimension d :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
    bool read = false;
    // Cluster ids and counts derive from the block id and the grid.
    kernel.walk([&](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case<gpu::GridDimOp, gpu::BlockIdOp, gpu::ClusterIdOp,
                gpu::ClusterDimOp, gpu::ClusterBlockIdOp>(
              [&](auto i) { read |= i.getDimension() == d; });
    });
    if (!read) { // one block along a dimension the kernel never reads
      dims.push_back(
          b.getDictionaryAttr(b.getNamedAttr("extent", rb.constant(1))));
      continue;
    }
    Attribute exact, lower;
    StringAttr exactWhy, lowerWhy;
    bool divides = false; // exact is div(e, m) and the host must check it
    kernel.walk([&](AssumeOp assume) {
      SmallVector<arith::CmpIOp> cmps;
      collectComparisons(assume.getCondition(), cmps);
      for (arith::CmpIOp cmp : cmps) {
        // Normalise to `grid_dim.d * m  pred  e`.
        arith::CmpIPredicate p = cmp.getPredicate();
        Attribute m = rb.gridFactor(cmp.getLhs(), d);
        Value other = cmp.getRhs();
        if (!m) {
          m = rb.gridFactor(cmp.getRhs(), d);
          other = cmp.getLhs();
          p = swapOperands(p);
        }
        Attribute e = m ? rb.hostExpr(other) : Attribute();
        if (!e)
          continue;
        using P = arith::CmpIPredicate;
        if (p == P::eq) {
          if (!exact) {
            exact = rb.node("div", e, m);
            exactWhy = assume.getMessageAttr();
            divides = m != rb.constant(1);
          }
          continue;
        }
        Attribute extent;
        if (p == P::uge || p == P::sge)
          extent = rb.node("ceildiv", e, m);
        else if (p == P::ugt || p == P::sgt)
          extent = rb.node("add", rb.node("div", e, m), rb.constant(1));
        else
          continue; // a cap: checked at launch, no extent from it
        lower = lower ? rb.node("max", lower, extent) : extent;
        if (!lowerWhy)
          lowerWhy = assume.getMessageAttr();
      }
    });
    SmallVector<NamedAttribute> entry;
    if (exact || lower) {
      entry.push_back(b.getNamedAttr("extent", exact ? exact : lower));
      entry.push_back(b.getNamedAttr("assume", exact ? exactWhy : lowerWhy));
      if (exact && divides)
        entry.push_back(b.getNamedAttr("exact", b.getBoolAttr(true)));
    } else {
      entry.push_back(b.getNamedAttr("extent", b.getStringAttr("free")));
    }
    dims.push_back(b.getDictionaryAttr(entry));
  }
  return b.getArrayAttr(dims);
}

ArrayAttr mlir::argus::indexRules(func::FuncOp kernel) {
  RuleBuilder rb(kernel);
  Builder &b = rb.builder();
  SmallVector<Attribute> rules;
  for (auto a : kernel.getBody().getOps<AssumeIndicesOp>()) {
    auto arg = dyn_cast<BlockArgument>(a.getTensor());
    if (!arg)
      continue; // the op's verifier rejects it
    SmallVector<NamedAttribute> entry{
        b.getNamedAttr("arg", rb.constant(arg.getArgNumber())),
        b.getNamedAttr("distinct", b.getBoolAttr(a.getDistinct())),
        b.getNamedAttr("message", a.getMessageAttr())};
    if (Attribute below = rb.hostExpr(a.getBound()))
      entry.push_back(b.getNamedAttr("below", below));
    rules.push_back(b.getDictionaryAttr(entry));
  }
  return b.getArrayAttr(rules);
}
