//===- SymbolicTerms.cpp - index, affine and layout terms in Z3 -----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "SymbolicTerms.h"
#include "ConcreteIndex.h"

#include "argus/Dialect/TileLayouts.h"
#include "argus/Verify/LayoutZ3.h"

#include <array>

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;
namespace zenc = ::argus::layout::z3enc;

namespace argus::verify::detail {

z3::expr floorDivTerm(const z3::expr &l, const z3::expr &r) {
  auto bv = [&](int64_t v) { return l.ctx().bv_val(v, kWidth); };
  z3::expr qq = l / r, rr = z3::srem(l, r);
  return z3::ite(rr != bv(0) && ((rr < bv(0)) != (r < bv(0))), qq - bv(1), qq);
}

L::Layout registerLayout(TileType ty) {
  FailureOr<L::Layout> l = getRegisterLayout(ty);
  if (failed(l))
    unsupported("no register layout for a tile");
  return *l;
}

L::SwizzledLayout memoryLayout(TileType ty) {
  if (auto la = dyn_cast_or_null<LayoutAttr>(ty.getLayout()))
    return la.getLayout();
  std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
  std::vector<L::IntTuple> elems(shape.begin(), shape.end());
  return L::SwizzledLayout(
      L::Layout::compactRowMajor(L::IntTuple::tuple(elems)));
}

int64_t SymbolicTerms::uval(const z3::model &m, const z3::expr &e) {
  z3::expr r = m.eval(e, true);
  uint64_t u = 0;
  if (!r.is_numeral_u64(u))
    return -1;
  return static_cast<int64_t>(u);
}

int64_t SymbolicTerms::sval(const z3::model &m, const z3::expr &e) {
  int64_t u = uval(m, e);
  if (u >= (int64_t(1) << (kWidth - 1)))
    u -= int64_t(1) << kWidth;
  return u;
}

/// Non-powers of two get fresh quotient / remainder variables tied by
/// x = q * c + r (much cheaper to bit-blast than a division circuit).
static bool isConstant(const z3::expr &e, uint64_t v) {
  return e.is_numeral() && e.get_numeral_uint64() == v;
}

z3::expr SymbolicTerms::times(const z3::expr &a, const z3::expr &b) {
  if (isConstant(a, 1))
    return b;
  if (isConstant(b, 1))
    return a;
  if (isConstant(a, 0) || isConstant(b, 0))
    return bv(0);
  return a * b;
}

z3::expr SymbolicTerms::plus(const z3::expr &a, const z3::expr &b) {
  if (isConstant(a, 0))
    return b;
  if (isConstant(b, 0))
    return a;
  return a + b;
}

z3::expr SymbolicTerms::tripCount(const z3::expr &lb, const z3::expr &ub,
                                  const z3::expr &step) {
  const auto &isConst = isConstant;
  bool constStep = step.is_numeral() && step.get_numeral_uint64() > 0;
  z3::expr span = isConst(lb, 0) ? ub : ub - lb;
  if (isConst(step, 1))
    return isConst(lb, 0) ? ub : z3::ite(z3::ugt(ub, lb), span, bv(0));
  z3::expr n = z3::udiv(constStep ? span + bv(step.get_numeral_int64() - 1)
                                  : span + step - bv(1),
                        step);
  // From 0 by a positive constant: (0 + step - 1) / step is already 0.
  if (isConst(lb, 0) && constStep)
    return n;
  return z3::ite(z3::ugt(ub, lb), n, bv(0));
}

/// `x` as ite(cond, a, b) when it is one, or a sum or difference with one
/// (an enumerated iteration plus a constant: see freshInst).
static std::optional<std::array<z3::expr, 3>> iteParts(const z3::expr &x,
                                                       int depth = 0) {
  if (!x.is_app() || depth > 4)
    return std::nullopt;
  Z3_decl_kind k = x.decl().decl_kind();
  if (k == Z3_OP_ITE)
    return std::array<z3::expr, 3>{x.arg(0), x.arg(1), x.arg(2)};
  if ((k != Z3_OP_BADD && k != Z3_OP_BSUB) || x.num_args() != 2)
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    auto p = iteParts(x.arg(side), depth + 1);
    if (!p)
      continue;
    z3::expr other = x.arg(1 - side);
    auto rebuild = [&](const z3::expr &v) {
      z3::expr a = side == 0 ? v : other, b = side == 0 ? other : v;
      return k == Z3_OP_BADD ? a + b : a - b;
    };
    return std::array<z3::expr, 3>{(*p)[0], rebuild((*p)[1]), rebuild((*p)[2])};
  }
  return std::nullopt;
}

std::pair<z3::expr, z3::expr> SymbolicTerms::divmod(const z3::expr &x,
                                                    int64_t c) {
  if ((c & (c - 1)) == 0)
    return {z3::udiv(x, bv(c)), z3::urem(x, bv(c))};
  uint64_t xv = 0;
  if (x.is_numeral_u64(xv))
    return {bv(static_cast<int64_t>(xv) / c), bv(static_cast<int64_t>(xv) % c)};
  // Through an enumerated iteration: each branch is a constant apart from
  // the other instances' values, which the lemma below relates.
  if (auto p = iteParts(x)) {
    auto [qa, ra] = divmod((*p)[1], c);
    auto [qb, rb] = divmod((*p)[2], c);
    return {z3::ite((*p)[0], qa, qb), z3::ite((*p)[0], ra, rb)};
  }
  auto key = std::make_pair(Z3_get_ast_id(ctx, x), c);
  auto it = q->divs.find(key);
  if (it != q->divs.end())
    return it->second;
  z3::expr qq = var("quot"), rr = var("rem");
  q->cons.push_back(z3::ult(rr, bv(c)));
  q->cons.push_back(z3::ule(qq, bv(((int64_t(1) << kWidth) - 1) / c)));
  q->cons.push_back(z3::bvadd_no_overflow(qq * bv(c), rr, false));
  q->cons.push_back(x == qq * bv(c) + rr);
  // Lemma for remainders of values a constant apart (x' = x + k, both
  // below 2^23 so no wrap-around): r' = (r + k) mod c. Makes the modular
  // reasoning of pipelines (stage = i mod S) propositional.
  for (auto &[k2, qr] : q->divs) {
    if (k2.second != c)
      continue;
    z3::expr other = q->divRoots.at(k2.first);
    z3::expr diff = (x - other).simplify();
    if (!diff.is_numeral())
      continue;
    int64_t k = 0;
    uint64_t u = 0;
    if (!diff.is_numeral_u64(u))
      continue;
    k = static_cast<int64_t>(u);
    if (k >= (int64_t(1) << (kWidth - 1)))
      k -= int64_t(1) << kWidth;
    int64_t km = ((k % c) + c) % c;
    z3::expr table = bv(0);
    for (int64_t v = c - 1; v >= 0; --v)
      table = z3::ite(qr.second == bv(v), bv((v + km) % c), table);
    q->cons.push_back(z3::implies(z3::ult(x, bv(kIndexBound)) &&
                                      z3::ult(other, bv(kIndexBound)),
                                  rr == table));
  }
  q->divRoots.emplace(Z3_get_ast_id(ctx, x), x);
  q->divs.emplace(key, std::make_pair(qq, rr));
  q->facts.push_back({ctx.bool_val(true), [x, qq, rr, c](const z3::model &m) {
                        int64_t xv = uval(m, x);
                        if (uval(m, qq) == xv / c && uval(m, rr) == xv % c)
                          return std::string();
                        return "division " + std::to_string(xv) + " / " +
                               std::to_string(c) + " disagrees";
                      }});
  return {qq, rr};
}
std::vector<z3::expr> SymbolicTerms::delin(const z3::expr &l,
                                           ArrayRef<int64_t> shape) {
  std::vector<z3::expr> c;
  int64_t mul = 1;
  for (int64_t d : shape) {
    c.push_back(divmod(divmod(l, mul).first, d).second);
    mul *= d;
  }
  return c;
}

z3::expr SymbolicTerms::lin(const std::vector<z3::expr> &c,
                            ArrayRef<int64_t> shape) {
  z3::expr r = bv(0);
  int64_t mul = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    r = r + c[k] * bv(mul);
    mul *= shape[k];
  }
  return r;
}

z3::expr SymbolicTerms::tvLin(const L::Layout &l, const z3::expr &t,
                              const z3::expr &v, const z3::expr &guard) {
  if (l.rank() != 2)
    unsupported("a (thread, slot) layout must have two modes: " + l.str());
  auto r = zenc::encodeCoords(l, {t, v});
  if (!r)
    unsupported("layout encoding failed: " + llvm::toString(r.takeError()));
  z3::expr out = *r;
  int64_t s0 = l.mode(0).size();
  q->facts.push_back({guard, [l, t, v, out, s0](const z3::model &m) {
                        int64_t tv = uval(m, t), vv = uval(m, v);
                        int64_t want = l(tv + s0 * vv), got = uval(m, out);
                        if (want == got)
                          return std::string();
                        return "layout " + l.str() + " at (" +
                               std::to_string(tv) + "," + std::to_string(vv) +
                               ") is " + std::to_string(want) + ", solver " +
                               std::to_string(got);
                      }});
  return out;
}

z3::expr SymbolicTerms::memOffset(const L::SwizzledLayout &l,
                                  ArrayRef<int64_t> shape,
                                  const std::vector<z3::expr> &c,
                                  const z3::expr &guard) {
  llvm::Expected<z3::expr> r = l.layout.rank() == shape.size()
                                   ? zenc::encodeCoords(l, c)
                                   : zenc::encode(l, lin(c, shape));
  if (!r)
    unsupported("layout encoding failed: " + llvm::toString(r.takeError()));
  z3::expr out = *r;
  std::vector<int64_t> sh(shape.begin(), shape.end());
  q->facts.push_back({guard, [l, sh, c, out](const z3::model &m) {
                        std::vector<int64_t> cv;
                        for (auto &e : c)
                          cv.push_back(uval(m, e));
                        int64_t want = l(linConcrete(cv, sh)),
                                got = uval(m, out);
                        if (want == got)
                          return std::string();
                        return "memory layout " + l.str() +
                               " disagrees: " + std::to_string(want) +
                               " vs solver " + std::to_string(got);
                      }});
  return out;
}

z3::expr SymbolicTerms::evalAffine(AffineExpr e,
                                   const std::vector<z3::expr> &dims,
                                   const std::vector<z3::expr> &syms) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims.at(d.getPosition());
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return syms.at(s.getPosition());
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return bv(c.getValue());
  auto b = cast<AffineBinaryOpExpr>(e);
  z3::expr l = evalAffine(b.getLHS(), dims, syms);
  z3::expr r = evalAffine(b.getRHS(), dims, syms);
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv:
    return floorDivTerm(l, r);
  case AffineExprKind::CeilDiv: {
    z3::expr qq = l / r, rr = z3::srem(l, r);
    return z3::ite(rr != bv(0) && ((rr < bv(0)) == (r < bv(0))), qq + bv(1),
                   qq);
  }
  case AffineExprKind::Mod: {
    z3::expr m = z3::smod(l, r);
    return m;
  }
  default:
    unsupported("affine expression kind");
  }
}

z3::expr SymbolicTerms::evalAffineReplayed(AffineExpr e,
                                           const std::vector<z3::expr> &dims,
                                           const std::vector<z3::expr> &syms,
                                           const z3::expr &guard,
                                           const std::string &what) {
  z3::expr out = evalAffine(e, dims, syms);
  q->facts.push_back({guard, [e, dims, syms, out, what](const z3::model &m) {
                        std::vector<int64_t> d, s;
                        for (auto &x : dims)
                          d.push_back(sval(m, x));
                        for (auto &x : syms)
                          s.push_back(sval(m, x));
                        int64_t want = evalAffineConcrete(e, d, s),
                                got = sval(m, out);
                        if (want == got)
                          return std::string();
                        return what + " " + std::to_string(want) +
                               " vs solver " + std::to_string(got);
                      }});
  return out;
}

} // namespace argus::verify::detail
