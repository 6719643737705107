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
    z3::expr e = evalAffine(map.getResult(j), c, syms);
    t.insert_or_assign(cast<StringAttr>(fields[j]).getValue().str(), e);
    AffineExpr ae = map.getResult(j);
    q->facts.push_back({in.guard, [ae, c, syms, e](const z3::model &m) {
                          std::vector<int64_t> d, s;
                          for (auto &x : c)
                            d.push_back(sval(m, x));
                          for (auto &x : syms)
                            s.push_back(sval(m, x));
                          std::function<int64_t(AffineExpr)> ev =
                              [&](AffineExpr a) -> int64_t {
                            if (auto dd = dyn_cast<AffineDimExpr>(a))
                              return d[dd.getPosition()];
                            if (auto ss = dyn_cast<AffineSymbolExpr>(a))
                              return s[ss.getPosition()];
                            if (auto cc = dyn_cast<AffineConstantExpr>(a))
                              return cc.getValue();
                            auto bb = cast<AffineBinaryOpExpr>(a);
                            int64_t x = ev(bb.getLHS()), y = ev(bb.getRHS());
                            switch (a.getKind()) {
                            case AffineExprKind::Add:
                              return x + y;
                            case AffineExprKind::Mul:
                              return x * y;
                            case AffineExprKind::FloorDiv:
                              return floorDiv(x, y);
                            case AffineExprKind::CeilDiv:
                              return -floorDiv(-x, y);
                            default:
                              return floorMod(x, y);
                            }
                          };
                          int64_t want = ev(ae), got = sval(m, e);
                          if (want == got)
                            return std::string();
                          return "tag map value " + std::to_string(want) +
                                 " vs solver " + std::to_string(got);
                        }});
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
    return restrictTags(init, invariantFields(loop)[idx]);
  }
  Operation *def = v.getDefiningOp();
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    unsigned idx = cast<OpResult>(v).getResultNumber();
    Tags init = regTags(loop.getInitArgs()[idx], c, in);
    return restrictTags(init, invariantFields(loop)[idx]);
  }
  if (auto t = dyn_cast<TagOp>(def)) {
    Tags base = operandTags(t.getInput(), c, in, def);
    for (auto &[k, e] : applyTagOp(t, c, in))
      base.insert_or_assign(k, e);
    return base;
  }
  if (isa<FillOp>(def))
    return {};
  if (auto l = dyn_cast<LoadOp>(def))
    return memTags(l.getSource(), c, in, def, std::nullopt);
  if (auto m = dyn_cast<MmaOp>(def))
    return regTags(m.getAcc(), c, in);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp>(def)) {
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
  if (isa<ExpOp, Exp2Op, NegOp, ScaleOp, ConvertOp, ConvertLayoutOp>(def))
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
  if (auto b = dyn_cast<BroadcastOp>(def)) {
    std::vector<z3::expr> ci = c;
    ci.erase(ci.begin() + b.getDim());
    return regTags(b.getInput(), ci, in);
  }
  unsupported("op " + opDesc(def) + " is not modelled by the tag verifier");
}

Tags KernelVerifier::memTags(Value tile, const std::vector<z3::expr> &c,
                             const Inst &in, Operation *reader,
                             std::optional<z3::expr> readerThread) {
  MemView mv = resolve(tile, in);
  if (!mv.direct.empty()) {
    Tags t;
    for (DirectTag &d : mv.direct) {
      std::vector<z3::expr> tc;
      for (unsigned k : d.perm)
        tc.push_back(c[k]);
      for (auto &[k, e] : applyTagOp(d.op, tc, in))
        t.insert_or_assign(k, e);
    }
    return t;
  }
  if (mv.shared)
    return readShared(mv, c, in, reader, readerThread, true);
  return {}; // untagged global memory: no fields
}

} // namespace argus::verify::detail
