//===- IntegerTranslation.cpp - bit-vector queries as integer ones -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "IntegerTranslation.h"
#include "Subterms.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace argus::verify::detail {

namespace {

using Int = __int128;

/// Widths up to this many bits keep every range and coefficient product of
/// the translation inside 128-bit integers (and constants inside int64).
constexpr unsigned kMaxWidth = 40;

/// Thrown at the first term outside the fragment (its operator's name).
struct Unsupported {
  std::string op;
};

Int pow2(unsigned w) { return Int(1) << w; }

/// floor(a / b) for b > 0.
Int floorDiv(Int a, Int b) {
  Int q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// An integer term with bounds on its value.
struct Term {
  z3::expr e;
  Int lo, hi;
};

/// A bit-vector term as c + sum(coef * atom) modulo 2^width.
struct Linear {
  std::map<unsigned, std::pair<Term, Int>> parts; // atom id -> (atom, coef)
  Int c = 0;
};

class Translator {
public:
  explicit Translator(z3::context &ctx) : ctx(ctx), side(ctx) {}

  IntegerQuery run(const z3::expr_vector &assertions) {
    for (unsigned i = 0; i < assertions.size(); ++i)
      collectBounds(assertions[i]);
    // Bounds between variables (x < y, x == y) reach their fixed point in a
    // few rounds for the verifier's chains of sizes.
    for (int round = 0; round < 4; ++round)
      for (auto &[a, b, strict] : relations)
        tighten(a, b, strict);
    for (auto &[a, b, strict] : relations)
      below.emplace(a, std::make_pair(b, Int(strict ? 1 : 0)));
    z3::expr_vector out(ctx);
    for (unsigned i = 0; i < assertions.size(); ++i)
      out.push_back(boolean(assertions[i]));
    for (unsigned i = 0; i < side.size(); ++i)
      out.push_back(side[i]);
    return {out, variables};
  }

private:
  z3::context &ctx;
  z3::expr_vector side; // definitions of the fresh variables
  std::map<unsigned, Term> terms;
  std::map<unsigned, z3::expr> booleans;
  std::map<unsigned, Linear> linears;
  // Bounds of the query's bit-vector variables from its top-level
  // conjuncts, used only to narrow wrap-around ranges (they are asserted,
  // so every model satisfies them).
  std::map<unsigned, std::pair<Int, Int>> bounds;
  std::vector<std::tuple<unsigned, unsigned, bool>> relations; // a < / <= b
  // a -> (b, g): a + g <= b.
  std::multimap<unsigned, std::pair<unsigned, Int>> below;
  std::vector<std::pair<z3::expr, z3::expr>> variables;
  using ReducedKey =
      std::tuple<unsigned, Int, std::vector<std::pair<unsigned, Int>>>;
  std::map<ReducedKey, Term> reduced;
  std::map<std::pair<unsigned, Int>, std::pair<z3::expr, Term>> quotientsOf;

  static bool isVariable(const z3::expr &e) {
    return e.is_app() && e.num_args() == 0 &&
           e.decl().decl_kind() == Z3_OP_UNINTERPRETED;
  }

  static std::optional<Int> numeral(const z3::expr &e) {
    uint64_t v;
    if (e.is_numeral() && e.is_numeral_u64(v))
      return Int(v);
    return std::nullopt;
  }

  static unsigned width(const z3::expr &e) {
    unsigned w = e.get_sort().bv_size();
    if (w > kMaxWidth)
      throw Unsupported{"width " + std::to_string(w)};
    return w;
  }

  std::pair<Int, Int> &boundsOf(const z3::expr &v) {
    auto it = bounds.find(v.id());
    if (it == bounds.end())
      it = bounds.emplace(v.id(), std::make_pair(Int(0), pow2(width(v)) - 1))
               .first;
    return it->second;
  }

  void tighten(unsigned a, unsigned b, bool strict) {
    auto ia = bounds.find(a), ib = bounds.find(b);
    if (ia == bounds.end() || ib == bounds.end())
      return;
    Int gap = strict ? 1 : 0;
    ia->second.second = std::min(ia->second.second, ib->second.second - gap);
    ib->second.first = std::max(ib->second.first, ia->second.first + gap);
  }

  /// Records bounds from a top-level conjunct (x < c, x >= c, x < y, ...).
  void collectBounds(const z3::expr &f) {
    if (!f.is_app())
      return;
    Z3_decl_kind k = f.decl().decl_kind();
    if (k == Z3_OP_AND) {
      for (unsigned i = 0; i < f.num_args(); ++i)
        collectBounds(f.arg(i));
      return;
    }
    if (k == Z3_OP_IMPLIES && f.arg(0).is_true()) {
      collectBounds(f.arg(1));
      return;
    }
    if (f.num_args() != 2 || !f.arg(0).is_bv())
      return;
    z3::expr a = f.arg(0), b = f.arg(1);
    bool less = k == Z3_OP_ULT || k == Z3_OP_ULEQ;
    bool greater = k == Z3_OP_UGT || k == Z3_OP_UGEQ;
    if (!less && !greater && k != Z3_OP_EQ)
      return;
    if (greater)
      std::swap(a, b); // b <= a or b < a, as a < b
    bool strict = k == Z3_OP_ULT || k == Z3_OP_UGT;
    try {
      if (isVariable(a) && numeral(b)) {
        auto &bd = boundsOf(a);
        bd.second = std::min(bd.second, *numeral(b) - (strict ? 1 : 0));
        if (k == Z3_OP_EQ)
          bd.first = std::max(bd.first, *numeral(b));
      } else if (numeral(a) && isVariable(b)) {
        auto &bd = boundsOf(b);
        bd.first = std::max(bd.first, *numeral(a) + (strict ? 1 : 0));
        if (k == Z3_OP_EQ)
          bd.second = std::min(bd.second, *numeral(a));
      } else if (isVariable(a) && isVariable(b)) {
        boundsOf(a);
        boundsOf(b);
        relations.emplace_back(a.id(), b.id(), strict);
        if (k == Z3_OP_EQ)
          relations.emplace_back(b.id(), a.id(), false);
      }
    } catch (Unsupported &) { // too wide: no bound recorded
    }
  }

  z3::expr intVal(Int v) { return ctx.int_val(static_cast<int64_t>(v)); }

  z3::expr freshInt(const char *what, Int lo, Int hi) {
    z3::expr x(ctx, Z3_mk_fresh_const(ctx, what, ctx.int_sort()));
    side.push_back(x >= intVal(lo));
    side.push_back(x <= intVal(hi));
    return x;
  }

  // --- Bit-vector terms as integers -------------------------------------

  /// The linear form of a width-w term modulo 2^w. Sums, differences,
  /// negations and products or shifts by constants stay linear (reduction
  /// modulo 2^w commutes with them); any other term is an atom.
  Linear linear(const z3::expr &t) {
    auto it = linears.find(t.id());
    if (it != linears.end())
      return it->second;
    unsigned w = width(t);
    Linear l;
    Z3_decl_kind k = t.is_app() ? t.decl().decl_kind() : Z3_OP_UNINTERPRETED;
    auto add = [&](const Linear &o, Int scale) {
      l.c += scale * o.c;
      for (auto &[id, p] : o.parts) {
        auto [pos, fresh] =
            l.parts.emplace(id, std::make_pair(p.first, Int(0)));
        pos->second.second += scale * p.second;
      }
    };
    if (k == Z3_OP_BADD) {
      for (unsigned i = 0; i < t.num_args(); ++i)
        add(linear(t.arg(i)), 1);
    } else if (k == Z3_OP_BSUB && t.num_args() == 2) {
      add(linear(t.arg(0)), 1);
      add(linear(t.arg(1)), -1);
    } else if (k == Z3_OP_BNEG) {
      add(linear(t.arg(0)), -1);
    } else if (k == Z3_OP_BMUL && t.num_args() == 2 &&
               (numeral(t.arg(0)) || numeral(t.arg(1)))) {
      bool first = numeral(t.arg(0)).has_value();
      add(linear(t.arg(first ? 1 : 0)), *numeral(t.arg(first ? 0 : 1)));
    } else if (k == Z3_OP_BSHL && numeral(t.arg(1))) {
      Int s = *numeral(t.arg(1));
      if (s >= w)
        l.c = 0;
      else
        add(linear(t.arg(0)), pow2(static_cast<unsigned>(s)));
    } else if (auto v = numeral(t)) {
      l.c = *v;
    } else if (k == Z3_OP_BMUL || k == Z3_OP_BSHL || k == Z3_OP_BSUB) {
      throw Unsupported{t.decl().name().str()}; // of symbolic values
    } else {
      Term a = term(t);
      l.parts.emplace(t.id(), std::make_pair(a, Int(1)));
    }
    // Coefficients modulo 2^w, in the signed range (a - b, not a + (2^w - 1)
    // b).
    Int m = pow2(w);
    auto centred = [&](Int v) {
      v %= m;
      if (v < 0)
        v += m;
      return v > m / 2 ? v - m : v;
    };
    l.c = centred(l.c);
    for (auto it2 = l.parts.begin(); it2 != l.parts.end();) {
      it2->second.second = centred(it2->second.second);
      if (it2->second.second == 0)
        it2 = l.parts.erase(it2);
      else
        ++it2;
    }
    linears.emplace(t.id(), l);
    return l;
  }

  /// The unsigned value of a linear form modulo 2^w: the sum less the wraps
  /// that its range allows (a variable only when there are several).
  Term reduce(const Linear &l, unsigned w) {
    // Equal linear forms (the same sum built twice, in another order) share
    // their value, and so their wrap-around variable.
    ReducedKey key{w, l.c, {}};
    for (auto &[id, p] : l.parts)
      std::get<2>(key).emplace_back(id, p.second);
    auto known = reduced.find(key);
    if (known != reduced.end())
      return known->second;
    Term r = reduceUncached(l, w);
    reduced.emplace(std::move(key), r);
    return r;
  }

  Term reduceUncached(const Linear &l, unsigned w) {
    z3::expr sum = intVal(l.c);
    std::map<unsigned, Int> coefs; // what is left to bound, per atom
    for (auto &[id, p] : l.parts) {
      sum = sum + (p.second == 1 ? p.first.e : intVal(p.second) * p.first.e);
      coefs[id] = p.second;
    }
    // A difference of two related variables (a block id less its grid
    // size) is bounded by the relation, not by the variables' intervals;
    // these pairs are what would otherwise wrap.
    Int lo = l.c, hi = l.c;
    for (auto &[lessId, more] : below) {
      auto [moreId, gap] = more;
      auto ci = coefs.find(moreId), cj = coefs.find(lessId);
      if (ci == coefs.end() || cj == coefs.end())
        continue;
      Int c = std::min(ci->second, -cj->second);
      if (c <= 0)
        continue;
      const Term &a = l.parts.at(moreId).first, &b = l.parts.at(lessId).first;
      lo += c * std::max(gap, a.lo - b.hi);
      hi += c * (a.hi - b.lo);
      ci->second -= c;
      cj->second += c;
    }
    for (auto &[id, coef] : coefs) {
      const Term &a = l.parts.at(id).first;
      lo += coef > 0 ? coef * a.lo : coef * a.hi;
      hi += coef > 0 ? coef * a.hi : coef * a.lo;
    }
    Int m = pow2(w);
    Int kLo = floorDiv(lo, m), kHi = floorDiv(hi, m);
    if (kLo == kHi)
      return {kLo == 0 ? sum : sum - intVal(kLo * m), lo - kLo * m,
              hi - kLo * m};
    z3::expr kv = freshInt("int!wrap", kLo, kHi);
    z3::expr r = freshInt("int!mod", 0, m - 1);
    side.push_back(r == sum - intVal(m) * kv);
    return {r, 0, m - 1};
  }

  /// The quotient of `a` by the constant d > 0, as a variable.
  Term quotient(const Term &a, Int d) {
    // One variable per value and divisor (a term's bit fields are selected
    // many times over).
    auto known = quotientsOf.find({a.e.id(), d});
    if (known != quotientsOf.end())
      return known->second.second;
    Term q{freshInt("int!quotient", a.lo / d, a.hi / d), a.lo / d, a.hi / d};
    side.push_back(intVal(d) * q.e <= a.e);
    side.push_back(a.e <= intVal(d) * q.e + intVal(d - 1));
    // The dividend is kept alive so that its id stays its own.
    quotientsOf.emplace(std::make_pair(a.e.id(), d), std::make_pair(a.e, q));
    return q;
  }

  Term remainder(const Term &a, Int d) {
    if (a.hi < d)
      return a;
    Term q = quotient(a, d);
    return {a.e - intVal(d) * q.e, 0, d - 1};
  }

  /// The unsigned value of the bit-vector term `t`.
  Term term(const z3::expr &t) {
    auto it = terms.find(t.id());
    if (it != terms.end())
      return it->second;
    Term r = termUncached(t);
    terms.emplace(t.id(), r);
    return r;
  }

  Term termUncached(const z3::expr &t) {
    unsigned w = width(t);
    if (auto v = numeral(t))
      return {intVal(*v), *v, *v};
    if (isVariable(t)) {
      auto [lo, hi] = boundsOf(t);
      if (lo > hi) // contradictory bounds: the query is unsat anyway
        lo = hi = 0;
      z3::expr x = freshInt(t.decl().name().str().c_str(), lo, hi);
      variables.emplace_back(t, x);
      return {x, lo, hi};
    }
    if (!t.is_app())
      throw Unsupported{"a quantified term"};
    Z3_decl_kind k = t.decl().decl_kind();
    switch (k) {
    case Z3_OP_BADD:
    case Z3_OP_BSUB:
    case Z3_OP_BNEG:
    case Z3_OP_BMUL:
    case Z3_OP_BSHL:
      return reduce(linear(t), w);
    case Z3_OP_ZERO_EXT:
      return term(t.arg(0));
    case Z3_OP_EXTRACT: {
      unsigned hiBit = t.hi(), loBit = t.lo();
      Term a = term(t.arg(0));
      if (loBit > 0)
        a = quotient(a, pow2(loBit));
      return remainder(a, pow2(hiBit - loBit + 1));
    }
    case Z3_OP_CONCAT: {
      Term acc = term(t.arg(0));
      for (unsigned i = 1; i < t.num_args(); ++i) {
        Term b = term(t.arg(i));
        Int m = pow2(width(t.arg(i)));
        acc = {acc.e * intVal(m) + b.e, acc.lo * m + b.lo, acc.hi * m + b.hi};
      }
      return acc;
    }
    case Z3_OP_BUDIV:
    case Z3_OP_BUDIV_I:
    case Z3_OP_BUREM:
    case Z3_OP_BUREM_I:
    case Z3_OP_BLSHR:
    case Z3_OP_BAND: {
      auto d = numeral(t.arg(1));
      if (!d || t.num_args() != 2)
        throw Unsupported{t.decl().name().str()};
      Term a = term(t.arg(0));
      if (k == Z3_OP_BLSHR)
        return *d >= w ? Term{intVal(0), 0, 0}
                       : quotient(a, pow2(static_cast<unsigned>(*d)));
      if (k == Z3_OP_BAND) {
        // A mask of the low bits is a remainder by a power of two.
        Int mask = *d;
        if ((mask & (mask + 1)) != 0)
          throw Unsupported{"bvand"};
        return remainder(a, mask + 1);
      }
      if (*d == 0) // x / 0 is all ones, x % 0 is x in SMT-LIB
        return k == Z3_OP_BUREM || k == Z3_OP_BUREM_I
                   ? a
                   : Term{intVal(pow2(w) - 1), pow2(w) - 1, pow2(w) - 1};
      if (k == Z3_OP_BUDIV || k == Z3_OP_BUDIV_I)
        return *d == 1 ? a : quotient(a, *d);
      return remainder(a, *d);
    }
    case Z3_OP_ITE: {
      Term a = term(t.arg(1)), b = term(t.arg(2));
      return {z3::ite(boolean(t.arg(0)), a.e, b.e), std::min(a.lo, b.lo),
              std::max(a.hi, b.hi)};
    }
    default:
      throw Unsupported{t.decl().name().str()};
    }
  }

  /// The two's-complement value of the bit-vector term `t` (its unsigned
  /// value less 2^w when the sign bit is set; no case split when its range
  /// decides the sign).
  z3::expr signedValue(const z3::expr &t) {
    Term a = term(t);
    Int half = pow2(width(t) - 1);
    if (a.hi < half)
      return a.e;
    z3::expr negative = a.e - intVal(2 * half);
    if (a.lo >= half)
      return negative;
    return z3::ite(a.e >= intVal(half), negative, a.e);
  }

  // --- Formulas -----------------------------------------------------------

  z3::expr boolean(const z3::expr &f) {
    auto it = booleans.find(f.id());
    if (it != booleans.end())
      return it->second;
    z3::expr r = booleanUncached(f);
    booleans.emplace(f.id(), r);
    return r;
  }

  z3::expr booleanUncached(const z3::expr &f) {
    if (!f.is_app())
      throw Unsupported{"a quantified formula"};
    Z3_decl_kind k = f.decl().decl_kind();
    auto args = [&] {
      z3::expr_vector v(ctx);
      for (unsigned i = 0; i < f.num_args(); ++i)
        v.push_back(boolean(f.arg(i)));
      return v;
    };
    switch (k) {
    case Z3_OP_TRUE:
    case Z3_OP_FALSE:
      return f;
    case Z3_OP_UNINTERPRETED:
      if (f.num_args() == 0)
        return f; // a Boolean variable (an abstracted predicate)
      throw Unsupported{f.decl().name().str()};
    case Z3_OP_AND:
      return z3::mk_and(args());
    case Z3_OP_OR:
      return z3::mk_or(args());
    case Z3_OP_NOT:
      return !boolean(f.arg(0));
    case Z3_OP_IMPLIES:
      return z3::implies(boolean(f.arg(0)), boolean(f.arg(1)));
    case Z3_OP_XOR:
      return boolean(f.arg(0)) != boolean(f.arg(1));
    case Z3_OP_ITE:
      return z3::ite(boolean(f.arg(0)), boolean(f.arg(1)), boolean(f.arg(2)));
    case Z3_OP_EQ:
    case Z3_OP_DISTINCT: {
      z3::expr_vector parts(ctx);
      std::vector<z3::expr> xs;
      for (unsigned i = 0; i < f.num_args(); ++i)
        xs.push_back(f.arg(i).is_bool() ? boolean(f.arg(i)) : term(f.arg(i)).e);
      if (k == Z3_OP_EQ) {
        for (size_t i = 1; i < xs.size(); ++i)
          parts.push_back(xs[0] == xs[i]);
      } else {
        for (size_t i = 0; i < xs.size(); ++i)
          for (size_t j = i + 1; j < xs.size(); ++j)
            parts.push_back(xs[i] != xs[j]);
      }
      return z3::mk_and(parts);
    }
    case Z3_OP_ULEQ:
      return term(f.arg(0)).e <= term(f.arg(1)).e;
    case Z3_OP_ULT:
      return term(f.arg(0)).e < term(f.arg(1)).e;
    case Z3_OP_UGEQ:
      return term(f.arg(0)).e >= term(f.arg(1)).e;
    case Z3_OP_UGT:
      return term(f.arg(0)).e > term(f.arg(1)).e;
    case Z3_OP_SLEQ:
      return signedValue(f.arg(0)) <= signedValue(f.arg(1));
    case Z3_OP_SLT:
      return signedValue(f.arg(0)) < signedValue(f.arg(1));
    case Z3_OP_SGEQ:
      return signedValue(f.arg(0)) >= signedValue(f.arg(1));
    case Z3_OP_SGT:
      return signedValue(f.arg(0)) > signedValue(f.arg(1));
    case Z3_OP_BUMUL_NO_OVFL: {
      // By a constant: the product is below 2^w.
      bool first = numeral(f.arg(0)).has_value();
      auto c = numeral(f.arg(first ? 0 : 1));
      if (!c)
        throw Unsupported{f.decl().name().str()};
      Term a = term(f.arg(first ? 1 : 0));
      return intVal(*c) * a.e <= intVal(pow2(width(f.arg(0))) - 1);
    }
    default:
      throw Unsupported{f.decl().name().str()};
    }
  }
};

} // namespace

std::optional<IntegerQuery> toLinearIntegers(z3::context &ctx,
                                             const z3::expr_vector &assertions,
                                             std::string *unsupported) {
  try {
    return Translator(ctx).run(assertions);
  } catch (Unsupported &u) {
    if (unsupported)
      *unsupported = u.op;
    return std::nullopt;
  }
}

void BitVectorValues::set(const z3::expr &var, const z3::expr &value) {
  byId.insert_or_assign(var.id(), std::make_pair(var, value));
}

std::optional<z3::expr> BitVectorValues::of(const z3::expr &var) const {
  auto it = byId.find(var.id());
  if (it == byId.end())
    return std::nullopt;
  return it->second.second;
}

z3::expr BitVectorValues::valueOr(const z3::expr &var) const {
  if (std::optional<z3::expr> u = of(var))
    return *u;
  return var.is_bool() ? var.ctx().bool_val(false) : var;
}

std::optional<std::pair<z3::expr, z3::expr>>
BitVectorValues::entry(unsigned id) const {
  auto it = byId.find(id);
  if (it == byId.end())
    return std::nullopt;
  return it->second;
}

std::optional<z3::expr> BitVectorValues::evaluate(const z3::expr &e) const {
  z3::expr_vector vars(e.ctx()), vals(e.ctx());
  for (auto &[id, vv] : byId) {
    vars.push_back(vv.first);
    vals.push_back(vv.second);
  }
  z3::expr r = z3::expr(e).substitute(vars, vals).simplify();
  if (r.is_numeral() || r.is_true() || r.is_false())
    return r;
  return std::nullopt;
}

IntegerTerms::IntegerTerms(const IntegerQuery &iq)
    : terms(iq.assertions.ctx()) {
  std::set<unsigned> seen;
  for (auto &[bv, in] : iq.variables)
    if (seen.insert(bv.id()).second) {
      terms.push_back(in);
      variables.push_back(bv);
    }
  forEachSubterm(iq.assertions, [&](const z3::expr &e) {
    if (e.is_bool() && e.num_args() == 0 &&
        e.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
        seen.insert(e.id()).second) {
      terms.push_back(e);
      variables.push_back(e);
    }
  });
}

BitVectorValues IntegerTerms::values(
    const std::vector<std::optional<uint64_t>> &termValues) const {
  BitVectorValues out;
  for (size_t i = 0; i < variables.size() && i < termValues.size(); ++i) {
    if (!termValues[i])
      continue;
    const z3::expr &v = variables[i];
    z3::context &c = v.ctx();
    out.set(v, v.is_bool() ? c.bool_val(*termValues[i] != 0)
                           : c.bv_val(*termValues[i], v.get_sort().bv_size()));
  }
  return out;
}

} // namespace argus::verify::detail
