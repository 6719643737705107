//===- TagTransfer.cpp - tags of register and memory tiles ----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The transfer rule of every modelled op: the tags of one element of a
// value (at symbolic tile coordinates, in one instance), as terms. Register
// values are followed through their defining ops; memory tiles through
// their direct tags or, in shared memory, their latest writer.
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/TagFields.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

Tags KernelVerifier::applyTagOp(TagOp op, const std::vector<z3::expr> &c,
                                const Inst &in) {
  std::vector<z3::expr> syms;
  for (Value s : op.getSymbols())
    syms.push_back(evalIndex(s, in));
  AffineMap map = op.getMap();
  if (map.getNumDims() != c.size())
    unsupported("tag map dimension count differs from the tile rank");
  Tags t;
  auto fields = op.getFields();
  for (unsigned j = 0; j < map.getNumResults(); ++j) {
    z3::expr e = evalAffineReplayed(map.getResult(j), c, syms, in.guard,
                                    "tag map value");
    t.insert_or_assign(cast<StringAttr>(fields[j]).getValue().str(), e);
  }
  return t;
}

Tags KernelVerifier::operandTags(Value v, const std::vector<z3::expr> &c,
                                 const Inst &in, Operation *reader) {
  auto ty = dyn_cast<TileType>(v.getType());
  if (!ty)
    unsupported("operand is not a tile");
  if (ty.isMemory())
    return memTags(v, c, in, reader, std::nullopt);
  return regTags(v, c, in);
}

static Tags restrictTags(Tags t, const std::set<std::string> &keep) {
  for (auto it = t.begin(); it != t.end();)
    it = keep.count(it->first) ? std::next(it) : t.erase(it);
  return t;
}

/// Whether `v`, computed in `loop`'s body, uses none of the loop's
/// iter_args: its value in an iteration is then a function of that
/// iteration alone (a fragment loaded afresh, not an accumulator).
static bool freshEachIteration(Value v, scf::ForOp loop) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto a = dyn_cast<BlockArgument>(x)) {
      if (a.getOwner() == loop.getBody() && a.getArgNumber() > 0)
        return false;
      continue; // an induction variable, or a nested loop's argument
    }
    Operation *d = x.getDefiningOp();
    if (!loop->isAncestor(d))
      continue; // defined outside the loop: the same in every iteration
    d->walk([&](Operation *n) {
      for (Value o : n->getOperands())
        work.push_back(o);
    });
  }
  return true;
}

void KernelVerifier::carriedFields(scf::ForOp loop, unsigned idx,
                                   const Tags &init,
                                   const std::vector<z3::expr> &c,
                                   const Inst &outer, const z3::expr &iv,
                                   Tags &out) {
  Value yielded = loop.getYieldedValues()[idx];
  // A yield computed from the loop's own iter_args (P of tile j - 1 carried
  // next to the row statistics it was computed with) is evaluated at the
  // previous iteration too: its carried operands then give their
  // invariant fields, or recurse one iteration further (up to the depth
  // cap, past which the field is not carried: unknown, never assumed).
  if (carriedDepth > (freshEachIteration(yielded, loop) ? 4 : 2))
    return;
  // The value at iteration i is the init value (i = lb) or what iteration
  // i - step yielded: exact, by the loop's semantics.
  z3::expr lb = bv(0), ub = bv(0);
  int64_t step = 1;
  loopBounds(loop, outer, lb, ub, step);
  z3::expr first = iv == lb;
  Inst prev = outer.with(loop, iv - bv(step), outer.guard && !first);
  ++carriedDepth;
  Tags y;
  try {
    y = regTags(yielded, c, prev);
  } catch (...) {
    --carriedDepth;
    throw;
  }
  --carriedDepth;
  for (auto &[f, e] : init)
    if (!out.count(f) && y.count(f))
      out.insert_or_assign(f, z3::ite(first, e, y.at(f)));
}

Tags KernelVerifier::regTags(Value v, const std::vector<z3::expr> &c,
                             const Inst &in) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      unsupported("register tile block argument that is not an scf.for "
                  "iter_arg");
    unsigned idx = arg.getArgNumber() - 1;
    Tags init = regTags(loop.getInitArgs()[idx], c, in.without(loop));
    auto h = hypothesis.find(loop.getOperation());
    if (h != hypothesis.end())
      return restrictTags(init, (*h->second)[idx]);
    Tags out = restrictTags(init, invariantFields(loop)[idx]);
    std::optional<z3::expr> iv = in.lookup(loop);
    if (out.size() < init.size() && iv)
      carriedFields(loop, idx, init, c, in.without(loop), *iv, out);
    return out;
  }
  Operation *def = v.getDefiningOp();
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    unsigned idx = cast<OpResult>(v).getResultNumber();
    Tags init = regTags(loop.getInitArgs()[idx], c, in);
    Tags out = restrictTags(init, invariantFields(loop)[idx]);
    if (out.size() < init.size()) {
      // After the loop: the value yielded by its last iteration.
      z3::expr lb = bv(0), ub = bv(0);
      int64_t step = 1;
      loopBounds(loop, in, lb, ub, step);
      z3::expr n = tripCount(lb, ub, bv(step));
      carriedFields(loop, idx, init, c, in, lb + n * bv(step), out);
    }
    return out;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    // The fields both branches yield, selected by the condition.
    unsigned k = cast<OpResult>(v).getResultNumber();
    z3::expr cond = evalBool(ifOp.getCondition(), in);
    Tags t = regTags(ifOp.thenYield().getOperand(k), c, in.under(cond));
    Tags e = regTags(ifOp.elseYield().getOperand(k), c, in.under(!cond));
    Tags out;
    for (auto &[f, x] : t)
      if (auto it = e.find(f); it != e.end())
        out.insert_or_assign(f, z3::ite(cond, x, it->second));
    return out;
  }
  if (auto t = dyn_cast<TagOp>(def)) {
    Tags base = operandTags(t.getInput(), c, in, def);
    for (auto &[k, e] : applyTagOp(t, c, in))
      base.insert_or_assign(k, e);
    return base;
  }
  if (isa<FillOp, SplatOp, IotaOp>(def))
    return {};
  if (auto l = dyn_cast<LoadOp>(def))
    return memTags(l.getSource(), c, in, def, std::nullopt);
  if (isa<MmaOp, MmaAsyncOp>(def))
    return regTags(def->getOperand(2), c, in);
  // A wait passes its values through (whether they are ready is the
  // business of the read checks, not of their tags).
  if (auto w = dyn_cast<WgmmaWaitOp>(def))
    return regTags(w.getValues()[cast<OpResult>(v).getResultNumber()], c, in);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, CmpOp>(def)) {
    Tags l = regTags(def->getOperand(0), c, in);
    Tags r = regTags(def->getOperand(1), c, in);
    Tags out = r;
    for (auto &[k, e] : l)
      out.insert_or_assign(k, e); // lhs wins for shared field names
    for (auto &[k, e] : l)
      out.insert_or_assign("lhs." + k, e);
    for (auto &[k, e] : r)
      out.insert_or_assign("rhs." + k, e);
    return out;
  }
  if (auto sel = dyn_cast<SelectOp>(def)) {
    // The element comes from the branch the mask picks, which the verifier
    // does not know: a field both branches carry is either one (a fresh
    // choice, so an assertion must hold for both); a field only one branch
    // carries is kept, as add keeps it (constants carry none).
    Tags l = regTags(sel.getLhs(), c, in);
    Tags r = regTags(sel.getRhs(), c, in);
    Tags m = regTags(sel.getMask(), c, in);
    z3::expr pick =
        ctx.bool_const(("select!" + std::to_string(fresh++)).c_str());
    Tags out = r;
    for (auto &[k, e] : l)
      if (auto it = r.find(k); it != r.end())
        out.insert_or_assign(k, z3::ite(pick, e, it->second));
      else
        out.insert_or_assign(k, e);
    for (auto &[k, e] : l)
      out.insert_or_assign("lhs." + k, e);
    for (auto &[k, e] : r)
      out.insert_or_assign("rhs." + k, e);
    for (auto &[k, e] : m)
      out.insert_or_assign("mask." + k, e);
    return out;
  }
  if (isa<ExpOp, Exp2Op, NegOp, AbsOp, ReluOp, SqrtOp, RsqrtOp, LogOp, Log2Op,
          TanhOp, SigmoidOp, GeluOp, ScaleOp, ConvertOp, ConvertLayoutOp>(def))
    return regTags(def->getOperand(0), c, in);
  if (auto r = dyn_cast<ReduceOp>(def)) {
    auto inTy = cast<TileType>(r.getInput().getType());
    int64_t dim = r.getDim();
    std::vector<z3::expr> ci = c;
    z3::expr red = rangeVar("reduced", inTy.getShape()[dim]);
    q->reductionVars.push_back(red);
    ci.insert(ci.begin() + dim, red);
    return regTags(r.getInput(), ci, in);
  }
  if (auto s = dyn_cast<ScanOp>(def)) {
    // Output p combines the inputs q <= p along dim: a field holds only if
    // it holds for every such q (the scanned coordinate is a reduction
    // variable, as a reduce's, bounded by p).
    auto inTy = cast<TileType>(s.getInput().getType());
    int64_t dim = s.getDim();
    std::vector<z3::expr> ci = c;
    z3::expr sv = rangeVar("scanned", inTy.getShape()[dim]);
    q->cons.push_back(z3::ule(sv, c[dim]));
    q->reductionVars.push_back(sv);
    ci[dim] = sv;
    return regTags(s.getInput(), ci, in);
  }
  if (auto b = dyn_cast<BroadcastOp>(def)) {
    std::vector<z3::expr> ci = c;
    ci.erase(ci.begin() + b.getDim());
    return regTags(b.getInput(), ci, in);
  }
  unsupported("op " + opDesc(def) + " is not modelled by the tag verifier");
}

std::optional<z3::expr>
KernelVerifier::tileValue(Value v, const std::vector<z3::expr> &c,
                          const Inst &in, int depth) {
  auto ty = dyn_cast<TileType>(v.getType());
  if (!ty || ty.isMemory() || !isa<IntegerType>(ty.getElementType()) ||
      depth > 8)
    return std::nullopt;
  Operation *d = v.getDefiningOp();
  if (!d)
    return std::nullopt;
  if (auto t = dyn_cast<TagOp>(d))
    return tileValue(t.getInput(), c, in, depth + 1);
  if (auto cl = dyn_cast<ConvertLayoutOp>(d))
    return tileValue(cl.getInput(), c, in, depth + 1);
  if (auto io = dyn_cast<IotaOp>(d))
    return c[io.getDim()];
  // Index values are non-negative and below 2^kWidth, so they are the same
  // numbers in an i32 or i64 tile, where comparisons are signed: compared
  // unsigned here, as they are equal then.
  if (auto sp = dyn_cast<SplatOp>(d)) {
    if (!sp.getValue().getType().isIndex() ||
        cast<IntegerType>(ty.getElementType()).getWidth() < 32)
      return std::nullopt;
    return evalIndex(sp.getValue(), in);
  }
  if (auto f = dyn_cast<FillOp>(d)) {
    double x = f.getValue().convertToDouble();
    if (x < 0 || x >= double(1 << 20) || x != double(int64_t(x)))
      return std::nullopt;
    return bv(int64_t(x));
  }
  if (auto cmp = dyn_cast<CmpOp>(d)) {
    std::optional<z3::expr> l = tileValue(cmp.getLhs(), c, in, depth + 1);
    std::optional<z3::expr> r = tileValue(cmp.getRhs(), c, in, depth + 1);
    if (!l || !r)
      return std::nullopt;
    z3::expr holds = ctx.bool_val(false);
    switch (cmp.getPredicate()) {
    case CmpPredicate::Lt:
      holds = z3::ult(*l, *r);
      break;
    case CmpPredicate::Le:
      holds = z3::ule(*l, *r);
      break;
    case CmpPredicate::Gt:
      holds = z3::ugt(*l, *r);
      break;
    case CmpPredicate::Ge:
      holds = z3::uge(*l, *r);
      break;
    case CmpPredicate::Eq:
      holds = *l == *r;
      break;
    case CmpPredicate::Ne:
      holds = *l != *r;
      break;
    }
    return z3::ite(holds, bv(1), bv(0));
  }
  return std::nullopt;
}

Tags KernelVerifier::memTags(Value tile, const std::vector<z3::expr> &c,
                             const Inst &in, Operation *reader,
                             std::optional<z3::expr> readerThread) {
  MemView mv = resolve(tile, in);
  if (mv.shared && mv.direct.empty())
    return readShared(mv, c, in, reader, readerThread, true);
  Tags t;
  for (DirectTag &d : mv.direct) {
    std::vector<z3::expr> tc;
    for (unsigned k : d.perm)
      tc.push_back(c[k]);
    for (auto &[k, e] : applyTagOp(d.op, tc, in))
      t.insert_or_assign(k, e);
  }
  // Global memory: the source tensor is an implicit field (untagged global
  // memory carries only it).
  if (!mv.shared)
    if (std::optional<unsigned> arg = getTensorArgument(mv.root))
      t.insert_or_assign(kTensorField.str(), bv(*arg));
  return t;
}

} // namespace argus::verify::detail
