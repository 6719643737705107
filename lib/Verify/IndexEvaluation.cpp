//===- IndexEvaluation.cpp - kernel parameters, index values, loops -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Index values (arith on index / integers, block ids, kernel arguments,
// induction variables) as terms, and the dynamic instances of ops nested in
// scf.for loops.
//
//===----------------------------------------------------------------------===//

#include "ArithmeticLemmas.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Analysis/WrittenArguments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

/// Why a constant index is not modelled: the terms are kWidth-bit, and a
/// larger constant would silently wrap.
static std::string outOfRange(int64_t x) {
  return "constant " + std::to_string(x) + " out of the modelled range [0, 2^" +
         std::to_string(kWidth - 1) + ")";
}

void KernelVerifier::collectParams() {
  auto mk = [&](const void *key, const std::string &name, int64_t lo) {
    z3::expr v = ctx.bv_const(name.c_str(), kWidth);
    params.emplace(key, v);
    paramVars.push_back({name, v});
    std::string range = "model limit: " + name + " in [" + std::to_string(lo) +
                        ", " + std::to_string(kParamBound) + ")";
    addLaunchCon(z3::uge(v, bv(lo)), range);
    addLaunchCon(z3::ult(v, bv(kParamBound)), range);
  };
  for (BlockArgument arg : func.getArguments())
    if (arg.getType().isIndex() || arg.getType().isInteger())
      mk(arg.getAsOpaquePointer(), "arg" + std::to_string(arg.getArgNumber()),
         1);
  // A block id parameter for every dimension whose block id, cluster id or
  // rank the kernel reads (cluster ids derive from the block id and the
  // grid's size).
  auto blockIdDim = [](Operation *op) -> std::optional<gpu::Dimension> {
    return llvm::TypeSwitch<Operation *, std::optional<gpu::Dimension>>(op)
        .Case<gpu::BlockIdOp, gpu::ClusterIdOp, gpu::ClusterBlockIdOp,
              gpu::ClusterDimOp>([](auto i) { return i.getDimension(); })
        .Default([](Operation *) { return std::nullopt; });
  };
  func.walk([&](Operation *op) {
    if (std::optional<gpu::Dimension> d = blockIdDim(op)) {
      if (!params.count(blockIdKey(static_cast<unsigned>(*d))))
        mk(blockIdKey(static_cast<unsigned>(*d)),
           "block_id." + stringifyDimension(*d).str(), 0);
    } else if (auto g = dyn_cast<gpu::GridDimOp>(op)) {
      std::string n = "grid_dim." + stringifyDimension(g.getDimension()).str();
      bool seen = false;
      for (auto &[name, e] : paramVars)
        seen |= name == n;
      if (!seen)
        mk(gridDimKey(static_cast<unsigned>(g.getDimension())), n, 1);
    }
  });
  // Loads: a tensor loaded below the kernel's top level (in a loop, a role,
  // a branch) and never written is a function of the indices (its loads at
  // entry too, so that they agree with it); a value loaded at entry from any
  // other tensor is a parameter.
  llvm::BitVector written = writtenArguments(func);
  func.walk([&](memref::LoadOp ld) {
    auto arg = dyn_cast<BlockArgument>(ld.getMemRef());
    if (!arg || arg.getOwner()->getParentOp() != func.getOperation() ||
        written.test(arg.getArgNumber()) ||
        ld->getParentOp() == func.getOperation())
      return;
    unsigned n = arg.getArgNumber();
    if (loadedTensors.count(n))
      return;
    z3::sort_vector dom(ctx);
    for (size_t i = 0; i < ld.getIndices().size(); ++i)
      dom.push_back(ctx.bv_sort(kWidth));
    std::string name = "arg" + std::to_string(n) + ".entries";
    loadedTensors.emplace(
        n, z3::function(name.c_str(), dom, ctx.bv_sort(kParamBits)));
  });
  func.walk([&](memref::LoadOp ld) {
    auto arg = dyn_cast<BlockArgument>(ld.getMemRef());
    if (ld->getParentOp() == func.getOperation() &&
        !(arg && loadedTensors.count(arg.getArgNumber())))
      mk(ld.getResult().getAsOpaquePointer(), "load@" + locStr(ld.getLoc()), 0);
  });
  // The grid's size in each dimension with a block id, whether or not the
  // kernel reads it: what its blocks cover depends on it.
  for (unsigned d = 0; d < 3; ++d)
    if (params.count(blockIdKey(d)) && !params.count(gridDimKey(d)))
      mk(gridDimKey(d),
         "grid_dim." + stringifyDimension(static_cast<gpu::Dimension>(d)).str(),
         1);
  collectSizes();
  // A block id is below the grid's size in its dimension; the grid is a
  // whole number of clusters (the launch checks it), each block a cluster
  // id and a rank.
  for (unsigned d = 0; d < 3; ++d) {
    auto b = params.find(blockIdKey(d));
    auto g = params.find(gridDimKey(d));
    if (b != params.end() && g != params.end())
      addLaunchCon(z3::ult(b->second, g->second),
                   "launch: block_id below grid_dim in dimension " +
                       std::to_string(d));
    if (!clusteredDim(d))
      continue;
    std::string x = stringifyDimension(static_cast<gpu::Dimension>(d)).str();
    mk(clusterIdKey(d), "cluster_id." + x, 0);
    mk(clusterRankKey(d), "cluster_rank." + x, 0);
    mk(clustersKey(d), "clusters." + x, 1);
    z3::expr c = bv(cluster[d]);
    std::string why = "launch: the grid is a whole number of clusters of " +
                      std::to_string(cluster[d]) + " in dimension " + x;
    addLaunchCon(z3::ult(params.at(clusterRankKey(d)), c), why);
    addLaunchCon(b->second == params.at(clusterIdKey(d)) * c +
                                  params.at(clusterRankKey(d)),
                 why);
    addLaunchCon(g->second == params.at(clustersKey(d)) * c, why);
  }
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
      return carriedIndex(loop, arg.getArgNumber() - 1, in);
    }
    auto it = params.find(arg.getAsOpaquePointer());
    if (it != params.end())
      return it->second;
    unsupported("block argument of '" + owner->getName().getStringRef() +
                "' is not modelled");
  }
  Operation *def = v.getDefiningOp();
  if (auto it = params.find(v.getAsOpaquePointer()); it != params.end())
    return param(it->first);
  if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    unsigned k = cast<OpResult>(v).getResultNumber();
    z3::expr cond = evalBool(ifOp.getCondition(), in);
    return z3::ite(cond,
                   evalIndex(ifOp.thenYield().getOperand(k), in.under(cond)),
                   evalIndex(ifOp.elseYield().getOperand(k), in.under(!cond)));
  }
  if (auto b = dyn_cast<gpu::BlockIdOp>(def))
    return param(blockIdKey(static_cast<unsigned>(b.getDimension())));
  if (auto g = dyn_cast<gpu::GridDimOp>(def))
    return param(gridDimKey(static_cast<unsigned>(g.getDimension())));
  // Cluster ids: parameters of their own in a dimension with a cluster
  // (collectParams), the block id itself without one.
  if (auto c = dyn_cast<gpu::ClusterIdOp>(def)) {
    unsigned d = static_cast<unsigned>(c.getDimension());
    return clusteredDim(d) ? param(clusterIdKey(d)) : param(blockIdKey(d));
  }
  if (auto c = dyn_cast<gpu::ClusterBlockIdOp>(def)) {
    unsigned d = static_cast<unsigned>(c.getDimension());
    return clusteredDim(d) ? param(clusterRankKey(d)) : bv(0);
  }
  if (auto c = dyn_cast<gpu::ClusterDimOp>(def)) {
    unsigned d = static_cast<unsigned>(c.getDimension());
    return clusteredDim(d) ? param(clustersKey(d)) : param(gridDimKey(d));
  }
  if (auto c = dyn_cast<gpu::ClusterDimBlocksOp>(def))
    return bv(cluster[static_cast<unsigned>(c.getDimension())]);
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto ia = dyn_cast<IntegerAttr>(c.getValue());
    if (!ia)
      unsupported("non-integer constant");
    int64_t x = ia.getValue().getSExtValue();
    if (x < 0 || x >= kIndexBound)
      unsupported(outOfRange(x));
    return bv(x);
  }
  auto constOf = [&](Value x) -> std::optional<int64_t> {
    if (auto c = x.getDefiningOp<arith::ConstantOp>())
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
        return ia.getValue().getSExtValue();
    return std::nullopt;
  };
  auto bounded = [&](z3::expr r, const std::string &what) {
    oblige(in.guard, z3::ult(r, bv(kIndexBound)), def,
           what + " stays below 2^" + std::to_string(kWidth - 1));
    obliged.insert(def);
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
    return checked(a, b, bounded(a + b, "the sum"), '+');
  }
  if (auto o = dyn_cast<arith::SubIOp>(def)) {
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    // Index arithmetic must not wrap: an obligation, checked at this op.
    oblige(in.guard, z3::uge(a, b), def, "the subtraction does not underflow");
    obliged.insert(def);
    return checked(a, b, a - b, '-');
  }
  if (auto o = dyn_cast<arith::MulIOp>(def)) {
    // Products of two symbolic values (grouped raster orders) are fine in
    // bit-vector logic; only wrap-around must be excluded.
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    oblige(in.guard, z3::bvmul_no_overflow(a, b, false), def,
           "the product does not wrap");
    return checked(a, b, bounded(a * b, "the product"), '*');
  }
  bool isDiv = isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def);
  bool isCeil = isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def);
  bool isRem = isa<arith::RemUIOp, arith::RemSIOp>(def);
  if (isDiv || isCeil || isRem) {
    auto c = constOf(def->getOperand(1));
    if (c && *c <= 0)
      unsupported("division by the non-positive constant " +
                  std::to_string(*c) + " at " + locStr(def->getLoc()));
    if (c && *c >= kIndexBound)
      unsupported(outOfRange(*c));
    z3::expr x = evalIndex(def->getOperand(0), in);
    // A block id or grid size of a clustered dimension divided by a divisor
    // of the cluster's size: block = cluster id * C + rank (rank < C) and
    // grid = clusters * C, so the quotient and remainder are linear in the
    // cluster parameters (a rank computed as block_id % 2 is the rank).
    if (c && (isDiv || isRem))
      if (std::optional<z3::expr> r = clusterQuotient(x, *c, isRem))
        return *r;
    if (c && isDiv)
      return divmod(x, *c).first;
    if (c && isRem)
      return divmod(x, *c).second;
    if (c)
      return bounded(z3::udiv(x + bv(*c - 1), bv(*c)),
                     "the rounded-up quotient");
    // A symbolic divisor (a group size, a tile count): an obligation that
    // it is not zero, and a concrete replay of the division.
    z3::expr d = evalIndex(def->getOperand(1), in);
    oblige(in.guard, d != bv(0), def, "the divisor is not zero");
    obliged.insert(def);
    z3::expr r =
        isRem ? z3::urem(x, d) : z3::udiv(isCeil ? x + d - bv(1) : x, d);
    char kind = isRem ? '%' : isCeil ? 'c' : '/';
    q->facts.push_back(
        {in.guard && d != bv(0), [x, d, r, kind](const z3::model &m) {
           int64_t a = uval(m, x), b = uval(m, d), z = uval(m, r);
           int64_t want = kind == '%'   ? a % b
                          : kind == 'c' ? (a + b - 1) / b
                                        : a / b;
           if (want == z)
             return std::string();
           return "division " + std::to_string(a) + " by " + std::to_string(b) +
                  " = " + std::to_string(want) + ", solver " +
                  std::to_string(z);
         }});
    return r;
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
  if (auto d = dyn_cast<memref::DimOp>(def)) {
    std::optional<int64_t> k = d.getConstantIndex();
    if (!k)
      unsupported("memref.dim of a non-constant dimension at " +
                  locStr(def->getLoc()));
    return tensorSize(d.getSource(), *k);
  }
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    // The carried value after the last iteration: its closed form at the
    // iteration number that equals the trip count.
    z3::expr lb = bv(0), ub = bv(0), step = bv(1);
    loopRange(loop, in, lb, ub, step);
    z3::expr trip = tripCount(lb, ub, step);
    return carriedIndex(loop, cast<OpResult>(v).getResultNumber(),
                        in.with(loop, lb + trip * step, in.guard));
  }
  if (auto ld = dyn_cast<memref::LoadOp>(def))
    return loadedValue(ld, in);
  unsupported("index value defined by '" + def->getName().getStringRef() +
              "' at " + locStr(def->getLoc()) + " is not modelled");
}

std::optional<z3::expr> KernelVerifier::clusterQuotient(const z3::expr &x,
                                                        int64_t c, bool rem) {
  for (unsigned d = 0; d < 3; ++d) {
    if (!clusteredDim(d) || cluster[d] % c != 0)
      continue;
    int64_t per = cluster[d] / c;
    auto b = params.find(blockIdKey(d));
    if (b != params.end() && z3::eq(x, b->second)) {
      z3::expr id = param(clusterIdKey(d)), rank = param(clusterRankKey(d));
      if (per == 1) // the cluster id and the rank themselves
        return rem ? rank : id;
      auto [q, r] = divmod(rank, c);
      return rem ? r : id * bv(per) + q;
    }
    auto g = params.find(gridDimKey(d));
    if (g != params.end() && z3::eq(x, g->second)) {
      z3::expr n = param(clustersKey(d));
      return rem ? bv(0) : per == 1 ? n : n * bv(per);
    }
  }
  return std::nullopt;
}

/// Whether `v` is the same in every iteration of `loop`: defined outside
/// it, or a constant (the DSL places constants where they are used).
static bool loopInvariant(Value v, scf::ForOp loop) {
  if (auto a = dyn_cast<BlockArgument>(v))
    return !loop->isAncestor(a.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  return !loop->isAncestor(def) || def->hasTrait<OpTrait::ConstantLike>();
}

z3::expr KernelVerifier::carriedIndex(scf::ForOp loop, unsigned idx,
                                      const Inst &in) {
  // Closed forms of the usual index recurrences, exact by induction on the
  // iteration number n = (i - lb) / step:
  //   x' = x + c          ->  x_n = x_0 + n c
  //   x' = (x + c) mod S  ->  x_n = (x_0 + n c) mod S  (n > 0)
  BlockArgument arg = loop.getRegionIterArgs()[idx];
  Value y = loop.getYieldedValues()[idx];
  std::optional<int64_t> modulus;
  if (auto rem = y.getDefiningOp<arith::RemUIOp>()) {
    auto c = rem.getRhs().getDefiningOp<arith::ConstantOp>();
    auto ia = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
    if (ia && ia.getValue().getSExtValue() > 0) {
      modulus = ia.getValue().getSExtValue();
      if (*modulus >= kIndexBound)
        unsupported(outOfRange(*modulus));
      y = rem.getLhs();
    }
  }
  auto add = y.getDefiningOp<arith::AddIOp>();
  Value inc;
  if (add && add.getLhs() == arg && loopInvariant(add.getRhs(), loop))
    inc = add.getRhs();
  else if (add && add.getRhs() == arg && loopInvariant(add.getLhs(), loop))
    inc = add.getLhs();
  // x' = the result of a nested loop that starts from x and adds c per
  // iteration (a counter running through nested loops): x' = x + trip * c.
  scf::ForOp inner;
  if (!inc && !modulus)
    if (auto r = dyn_cast<OpResult>(y))
      if (auto l = dyn_cast<scf::ForOp>(r.getOwner());
          l && l->getParentOp() == loop.getOperation() &&
          l.getInitArgs()[r.getResultNumber()] == arg &&
          loopInvariant(l.getLowerBound(), loop) &&
          loopInvariant(l.getUpperBound(), loop) &&
          loopInvariant(l.getStep(), loop)) {
        BlockArgument ia = l.getRegionIterArgs()[r.getResultNumber()];
        auto a2 = l.getYieldedValues()[r.getResultNumber()]
                      .getDefiningOp<arith::AddIOp>();
        if (a2 && a2.getLhs() == ia && loopInvariant(a2.getRhs(), l) &&
            loopInvariant(a2.getRhs(), loop))
          inc = a2.getRhs();
        else if (a2 && a2.getRhs() == ia && loopInvariant(a2.getLhs(), l) &&
                 loopInvariant(a2.getLhs(), loop))
          inc = a2.getLhs();
        if (inc)
          inner = l;
      }
  if (!inc)
    unsupported("an index value carried by scf.for iter_args at " +
                locStr(loop.getLoc()) +
                " that is not x + c or (x + c) mod S (c loop-invariant)");
  std::optional<z3::expr> iv = in.lookup(loop);
  if (!iv)
    unsupported("iter_arg used outside its loop instance");
  Inst outer = in.without(loop);
  z3::expr lb = bv(0), ub = bv(0), step = bv(1);
  loopRange(loop, outer, lb, ub, step);
  z3::expr span =
      lb.is_numeral() && lb.get_numeral_uint64() == 0 ? *iv : *iv - lb;
  z3::expr n = step.is_numeral() && step.get_numeral_uint64() == 1
                   ? span
                   : z3::udiv(span, step);
  z3::expr x0 = evalIndex(loop.getInitArgs()[idx], outer);
  z3::expr c = evalIndex(inc, outer);
  if (inner) {
    z3::expr ilb = bv(0), iub = bv(0), istep = bv(1);
    loopRange(inner, outer, ilb, iub, istep);
    z3::expr trip = tripCount(ilb, iub, istep);
    oblige(in.guard, z3::bvmul_no_overflow(trip, c, false), loop,
           "the carried index value does not wrap");
    c = times(trip, c);
  }
  z3::expr prod = times(n, c);
  oblige(in.guard, z3::bvmul_no_overflow(n, c, false), loop,
         "the carried index value does not wrap");
  z3::expr sum = plus(x0, prod);
  oblige(in.guard, z3::ult(sum, bv(kIndexBound)), loop,
         "the carried index value stays below 2^" + std::to_string(kWidth - 1));
  obliged.insert(loop);
  if (!modulus)
    return sum;
  return z3::ite(n == bv(0), x0, z3::urem(sum, bv(*modulus)));
}

z3::expr KernelVerifier::evalBool(Value v, const Inst &in) {
  Operation *def = v.getDefiningOp();
  if (!def)
    unsupported("a condition that is a block argument is not modelled");
  if (auto c = dyn_cast<arith::ConstantOp>(def))
    if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
      return ctx.bool_val(!ia.getValue().isZero());
  if (auto c = dyn_cast<arith::CmpIOp>(def)) {
    z3::expr a = evalIndex(c.getLhs(), in), b = evalIndex(c.getRhs(), in);
    // Index values are non-negative and below kIndexBound: signed and
    // unsigned comparisons agree.
    switch (c.getPredicate()) {
    case arith::CmpIPredicate::eq:
      return a == b;
    case arith::CmpIPredicate::ne:
      return a != b;
    case arith::CmpIPredicate::ult:
    case arith::CmpIPredicate::slt:
      return z3::ult(a, b);
    case arith::CmpIPredicate::ule:
    case arith::CmpIPredicate::sle:
      return z3::ule(a, b);
    case arith::CmpIPredicate::ugt:
    case arith::CmpIPredicate::sgt:
      return z3::ugt(a, b);
    case arith::CmpIPredicate::uge:
    case arith::CmpIPredicate::sge:
      return z3::uge(a, b);
    }
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def)) {
    z3::expr a = evalBool(def->getOperand(0), in),
             b = evalBool(def->getOperand(1), in);
    if (isa<arith::AndIOp>(def))
      return a && b;
    if (isa<arith::OrIOp>(def))
      return a || b;
    return a != b;
  }
  unsupported("condition defined by '" + def->getName().getStringRef() +
              "' at " + locStr(def->getLoc()) + " is not modelled");
}

void KernelVerifier::collectAssumptions(std::vector<std::string> &out) {
  Query Q;
  q = &Q;
  for (auto a : func.getBody().getOps<AssumeOp>()) {
    try {
      addLaunchCon(evalBool(a.getCondition(), Inst(ctx.bool_val(true))),
                   "argus.assume \"" + a.getMessage().str() + "\" at " +
                       locStr(a.getLoc()));
      out.push_back(a.getMessage().str() + " (" + locStr(a.getLoc()) + ")");
    } catch (Unsupported &u) {
      // Not using a precondition only makes the verifier weaker.
      out.push_back("ignored: " + a.getMessage().str() + " (" +
                    locStr(a.getLoc()) + "): " + u.reason);
    }
  }
  // Data preconditions: not constraints of any query (the checks of
  // gathers read them), but assumptions a proof rests on.
  for (auto a : func.getBody().getOps<AssumeIndicesOp>())
    out.push_back("data: " + a.getMessage().str() + " (" + locStr(a.getLoc()) +
                  "; checked by the launcher, not by the "
                  "verifier)");
  for (auto &c : Q.cons)
    addLaunchCon(c, "definitions of the assumptions' arithmetic");
  // The obligations met on the way stay obligations, checked at their ops;
  // the other queries assume them (see assumptionObligations), so a launch
  // whose precondition holds only through wrap-around is not a witness.
  assumptionObligations = std::move(Q.obligations);
  assumptionFacts = std::move(Q.facts);
  for (const Obligation &ob : assumptionObligations)
    assumptionOps.insert(ob.op);
  q = nullptr;
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
  if (step >= kIndexBound)
    unsupported(outOfRange(step));
}

void KernelVerifier::loopRange(scf::ForOp loop, const Inst &in, z3::expr &lb,
                               z3::expr &ub, z3::expr &step) {
  lb = evalIndex(loop.getLowerBound(), in);
  ub = evalIndex(loop.getUpperBound(), in);
  if (auto c = loop.getStep().getDefiningOp<arith::ConstantOp>()) {
    auto ia = dyn_cast<IntegerAttr>(c.getValue());
    if (!ia || ia.getValue().getSExtValue() <= 0)
      unsupported("scf.for with a step that is not positive at " +
                  locStr(loop.getLoc()));
    if (ia.getValue().getSExtValue() >= kIndexBound)
      unsupported(outOfRange(ia.getValue().getSExtValue()));
    step = bv(ia.getValue().getSExtValue());
    return;
  }
  // A symbolic step (a grid-stride loop steps by the grid size): positive
  // for every launch, which the obligation makes sure of.
  step = evalIndex(loop.getStep(), in);
  oblige(in.guard, z3::ugt(step, bv(0)), loop, "the loop step is positive");
  obliged.insert(loop);
}

z3::expr KernelVerifier::loadedValue(memref::LoadOp ld, const Inst &in) {
  auto arg = dyn_cast<BlockArgument>(ld.getMemRef());
  auto f = arg ? loadedTensors.find(arg.getArgNumber()) : loadedTensors.end();
  if (f == loadedTensors.end())
    unsupported("a value loaded below the kernel's top level (" +
                locStr(ld.getLoc()) +
                ") from a tensor the kernel writes, or not a kernel argument, "
                "is not modelled");
  z3::expr_vector indices(ctx);
  for (Value i : ld.getIndices())
    indices.push_back(evalIndex(i, in));
  z3::expr entry = f->second(indices);
  if (q)
    q->loads.push_back(entry);
  return z3::zext(entry, kWidth - kParamBits);
}

z3::expr KernelVerifier::param(const void *key) {
  if (auto it = renamedParams.find(key); it != renamedParams.end())
    return it->second;
  return params.at(key);
}

Inst KernelVerifier::freshInst(Operation *op, bool guardOnly,
                               std::vector<LoopVar> *loops) {
  Inst in(ctx.bool_val(true));
  // The instance's conditions: constraints of the query, or (guardOnly) its
  // guard, for a query that asks whether some instance exists.
  auto require = [&](const z3::expr &c) {
    if (guardOnly)
      in.guard = in.guard && c;
    else
      q->cons.push_back(c);
  };
  std::vector<Operation *> parents;
  for (Operation *p = op->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp())
    parents.insert(parents.begin(), p);
  for (size_t k = 0; k < parents.size(); ++k) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parents[k])) {
      // The instance executes only where the branch it sits in is taken.
      Operation *child = k + 1 < parents.size() ? parents[k + 1] : op;
      z3::expr cond = evalBool(ifOp.getCondition(), in);
      bool inThen = ifOp.getThenRegion().isAncestor(child->getParentRegion());
      require(inThen ? cond : !cond);
      continue;
    }
    // A warp role only narrows which threads run the op.
    if (isa<RoleOp>(parents[k]))
      continue;
    auto loop = dyn_cast<scf::ForOp>(parents[k]);
    if (!loop)
      unsupported("op nested in '" + parents[k]->getName().getStringRef() +
                  "' (scf.for, scf.if and argus.role are modelled)");
    z3::expr lb = bv(0), ub = bv(0), stepE = bv(1);
    loopRange(loop, in, lb, ub, stepE);
    z3::expr i = var("iv");
    // A loop of a few iterations (a pipeline's drain) is enumerated: its
    // iteration is lb, lb + step, ... chosen by a selector, so each choice
    // is a constant apart from other instances' iterations and stage
    // indices modulo a non-power of two become propositional (divmod).
    // Coverage analyses (`loops`) and guards keep a plain variable.
    if (!loops && !guardOnly && stepE.is_numeral()) {
      int64_t s = stepE.get_numeral_int64();
      z3::expr span = (ub - lb).simplify();
      uint64_t u = 0;
      if (s > 0 && span.is_numeral_u64(u) && u > 0 && u <= uint64_t(4 * s)) {
        int64_t n = (static_cast<int64_t>(u) + s - 1) / s;
        z3::expr sel = var("trip");
        q->cons.push_back(z3::ult(sel, bv(n)));
        i = lb + bv((n - 1) * s);
        for (int64_t t = n - 2; t >= 0; --t)
          i = z3::ite(sel == bv(t), t == 0 ? lb : lb + bv(t * s), i);
      }
    }
    require(z3::uge(i, lb));
    require(z3::ult(i, ub));
    if (!(stepE.is_numeral() && stepE.get_numeral_int64() == 1))
      require(z3::urem(i - lb, stepE) == bv(0));
    if (!stepE.is_numeral())
      q->cons.push_back(strideResidueLemma(i, lb, stepE));
    in = in.with(loop, i, in.guard);
    // Coverage arguments need a constant step (0 marks a symbolic one).
    if (loops)
      loops->push_back({loop, i, lb,
                        stepE.is_numeral() ? stepE.get_numeral_int64() : 0,
                        stepE});
  }
  return in;
}

} // namespace argus::verify::detail
