//===- IndexEvaluation.cpp - kernel parameters, index values, loops -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Index values (arith on index / integers, block ids, kernel arguments,
// induction variables) as terms, and the dynamic instances of ops nested in
// scf.for loops.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

void KernelVerifier::collectParams() {
  auto mk = [&](const void *key, const std::string &name, int64_t lo) {
    z3::expr v = ctx.bv_const(name.c_str(), kWidth);
    params.emplace(key, v);
    paramVars.push_back({name, v});
    paramCons.push_back(z3::uge(v, bv(lo)));
    paramCons.push_back(z3::ult(v, bv(kParamBound)));
  };
  for (BlockArgument arg : func.getArguments())
    if (arg.getType().isIndex() || arg.getType().isInteger())
      mk(arg.getAsOpaquePointer(), "arg" + std::to_string(arg.getArgNumber()),
         1);
  func.walk([&](Operation *op) {
    if (auto b = dyn_cast<gpu::BlockIdOp>(op)) {
      std::string n = "block_id." + stringifyDimension(b.getDimension()).str();
      bool seen = false;
      for (auto &[name, e] : paramVars)
        seen |= name == n;
      if (!seen)
        mk(reinterpret_cast<const void *>(
               static_cast<uintptr_t>(b.getDimension()) + 1),
           n, 0);
    } else if (auto ld = dyn_cast<memref::LoadOp>(op)) {
      if (ld->getParentOp() == func.getOperation())
        mk(ld.getResult().getAsOpaquePointer(), "load@" + locStr(ld.getLoc()),
           0);
    }
  });
}

z3::expr KernelVerifier::evalIndex(Value v, const Inst &in) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (arg.getArgNumber() == 0) {
        if (auto iv = in.lookup(loop))
          return *iv;
        unsupported("induction variable used outside its loop instance");
      }
      unsupported("index values carried by scf.for iter_args are not "
                  "modelled");
    }
    auto it = params.find(arg.getAsOpaquePointer());
    if (it != params.end())
      return it->second;
    unsupported("block argument of '" + owner->getName().getStringRef() +
                "' is not modelled");
  }
  Operation *def = v.getDefiningOp();
  if (auto it = params.find(v.getAsOpaquePointer()); it != params.end())
    return it->second;
  if (auto b = dyn_cast<gpu::BlockIdOp>(def))
    return params.at(reinterpret_cast<const void *>(
        static_cast<uintptr_t>(b.getDimension()) + 1));
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto ia = dyn_cast<IntegerAttr>(c.getValue());
    if (!ia)
      unsupported("non-integer constant");
    int64_t x = ia.getValue().getSExtValue();
    if (x < 0 || x >= kIndexBound)
      unsupported("constant " + std::to_string(x) +
                  " out of the modelled "
                  "range [0, 2^30)");
    return bv(x);
  }
  auto constOf = [&](Value x) -> std::optional<int64_t> {
    if (auto c = x.getDefiningOp<arith::ConstantOp>())
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
        return ia.getValue().getSExtValue();
    return std::nullopt;
  };
  auto bounded = [&](z3::expr r, const std::string &what) {
    assume(in.guard, z3::ult(r, bv(kIndexBound)));
    (void)what;
    return r;
  };
  // Concrete re-evaluation of a binary index op on the model.
  auto checked = [&](z3::expr a, z3::expr b, z3::expr r, char op) {
    q->facts.push_back(
        {in.guard, [a, b, r, op](const z3::model &m) {
           int64_t x = uval(m, a), y = uval(m, b), z = uval(m, r);
           int64_t want = op == '+' ? x + y : op == '-' ? x - y : x * y;
           if (want == z)
             return std::string();
           return std::string("index arithmetic wraps: ") + std::to_string(x) +
                  " " + op + " " + std::to_string(y) + " = " +
                  std::to_string(want) + ", solver " + std::to_string(z);
         }});
    return r;
  };
  if (auto o = dyn_cast<arith::AddIOp>(def)) {
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    return checked(a, b, bounded(a + b, "addi"), '+');
  }
  if (auto o = dyn_cast<arith::SubIOp>(def)) {
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    // Index arithmetic does not wrap: a kernel precondition (documented).
    assume(in.guard, z3::uge(a, b));
    return checked(a, b, a - b, '-');
  }
  if (auto o = dyn_cast<arith::MulIOp>(def)) {
    auto ca = constOf(o.getLhs()), cb = constOf(o.getRhs());
    if (!ca && !cb)
      unsupported("non-linear index arithmetic (product of two symbolic "
                  "values) at " +
                  locStr(o.getLoc()));
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    assume(in.guard, z3::bvmul_no_overflow(a, b, false));
    return checked(a, b, bounded(a * b, "muli"), '*');
  }
  auto divisor = [&](Value x) -> int64_t {
    auto c = constOf(x);
    if (!c || *c <= 0)
      unsupported("division by a non-constant or non-positive value at " +
                  locStr(def->getLoc()));
    return *c;
  };
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def)) {
    int64_t d = divisor(def->getOperand(1));
    return divmod(evalIndex(def->getOperand(0), in), d).first;
  }
  if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def)) {
    int64_t d = divisor(def->getOperand(1));
    return bounded(
        z3::udiv(evalIndex(def->getOperand(0), in) + bv(d - 1), bv(d)),
        "ceildiv");
  }
  if (isa<arith::RemUIOp, arith::RemSIOp>(def)) {
    int64_t d = divisor(def->getOperand(1));
    return divmod(evalIndex(def->getOperand(0), in), d).second;
  }
  if (isa<arith::MinUIOp, arith::MinSIOp>(def)) {
    z3::expr a = evalIndex(def->getOperand(0), in),
             b = evalIndex(def->getOperand(1), in);
    return z3::ite(z3::ult(a, b), a, b);
  }
  if (isa<arith::MaxUIOp, arith::MaxSIOp>(def)) {
    z3::expr a = evalIndex(def->getOperand(0), in),
             b = evalIndex(def->getOperand(1), in);
    return z3::ite(z3::ult(a, b), b, a);
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return evalIndex(def->getOperand(0), in);
  if (isa<memref::LoadOp>(def))
    unsupported("a value loaded from memory inside a loop (" +
                locStr(def->getLoc()) + ") is not modelled");
  unsupported("index value defined by '" + def->getName().getStringRef() +
              "' at " + locStr(def->getLoc()) + " is not modelled");
}

std::vector<scf::ForOp> KernelVerifier::enclosingLoops(Operation *op) {
  std::vector<scf::ForOp> loops;
  for (Operation *p = op->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp()) {
    if (auto f = dyn_cast<scf::ForOp>(p))
      loops.insert(loops.begin(), f);
    else
      unsupported("op nested in '" + p->getName().getStringRef() +
                  "' (only scf.for is modelled)");
  }
  return loops;
}

void KernelVerifier::loopBounds(scf::ForOp loop, const Inst &in, z3::expr &lb,
                                z3::expr &ub, int64_t &step) {
  lb = evalIndex(loop.getLowerBound(), in);
  ub = evalIndex(loop.getUpperBound(), in);
  auto c = loop.getStep().getDefiningOp<arith::ConstantOp>();
  auto ia = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
  if (!ia || ia.getValue().getSExtValue() <= 0)
    unsupported("scf.for with a non-constant step at " + locStr(loop.getLoc()));
  step = ia.getValue().getSExtValue();
}

Inst KernelVerifier::freshInst(Operation *op) {
  Inst in(ctx.bool_val(true));
  for (scf::ForOp loop : enclosingLoops(op)) {
    z3::expr lb = bv(0), ub = bv(0);
    int64_t step = 1;
    loopBounds(loop, in, lb, ub, step);
    z3::expr i = var("iv");
    q->cons.push_back(z3::uge(i, lb));
    q->cons.push_back(z3::ult(i, ub));
    if (step != 1)
      q->cons.push_back(z3::urem(i - lb, bv(step)) == bv(0));
    in = in.with(loop, i, in.guard);
  }
  return in;
}

} // namespace argus::verify::detail
