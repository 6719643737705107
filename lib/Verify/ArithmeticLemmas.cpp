//===- ArithmeticLemmas.cpp - division and product facts for Z3 ----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "ArithmeticLemmas.h"
#include "Subterms.h"

#include <map>
#include <optional>
#include <set>

using namespace argus::verify::detail;

namespace {

/// At most this many terms per divisor or radix take part in lemmas: the
/// instances grow quadratically, and a query with more is not a tile index.
constexpr size_t kMaxTermsPerKey = 12;
/// At most this many equalities between two terms with products.
constexpr size_t kMaxEqualities = 32;

/// A term written q * C + r: `sum` is the whole term, `rest` the summands
/// other than the product q * C (none for a bare product).
struct RadixTerm {
  z3::expr sum, q;
  std::vector<z3::expr> rest;
};

bool isApp(const z3::expr &e, Z3_decl_kind k) {
  return e.is_app() && e.decl().decl_kind() == k;
}

bool isSymbolicProduct(const z3::expr &e) {
  return isApp(e, Z3_OP_BMUL) && e.num_args() == 2 && !e.arg(0).is_numeral() &&
         !e.arg(1).is_numeral();
}

void flattenSum(const z3::expr &e, std::vector<z3::expr> &out) {
  if (isApp(e, Z3_OP_BADD)) {
    for (unsigned i = 0; i < e.num_args(); ++i)
      flattenSum(e.arg(i), out);
    return;
  }
  // x - k is x + (2^w - k) as bit-vectors ("the slot before", j - 1).
  if (isApp(e, Z3_OP_BSUB) && e.num_args() == 2 && e.arg(1).is_numeral()) {
    flattenSum(e.arg(0), out);
    unsigned w = e.get_sort().bv_size();
    uint64_t k = e.arg(1).get_numeral_uint64();
    uint64_t mask = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
    if (k & mask)
      out.push_back(e.ctx().bv_val((~k + 1) & mask, w));
    return;
  }
  if (e.is_numeral() && e.get_numeral_uint64() == 0)
    return;
  out.push_back(e);
}

/// A dividend of a symbolic divisor, and which of x / d and x % d occur: the
/// lemmas use those terms only, since a new division is a new divider
/// circuit for the solver.
struct Dividend {
  z3::expr x;
  bool quotient = false, remainder = false;
};

/// Terms grouped by the id of a shared subterm (a divisor, a radix).
template <typename T> struct Groups {
  std::map<unsigned, std::pair<z3::expr, std::vector<T>>> byKey;
  /// The stored term (stable: the vectors are reserved), or null past
  /// the cap.
  T *add(const z3::expr &key, T t) {
    auto it = byKey.find(key.id());
    if (it == byKey.end()) {
      it = byKey.emplace(key.id(), std::make_pair(key, std::vector<T>())).first;
      it->second.second.reserve(kMaxTermsPerKey);
    }
    if (it->second.second.size() >= kMaxTermsPerKey)
      return nullptr;
    it->second.second.push_back(std::move(t));
    return &it->second.second.back();
  }
};

/// The ways to read `e` as q * C + rest: one per factor of each product of
/// two symbolic values among its summands.
std::vector<std::pair<z3::expr, RadixTerm>> radixForms(const z3::expr &e) {
  std::vector<z3::expr> summands;
  flattenSum(e, summands);
  std::vector<std::pair<z3::expr, RadixTerm>> forms;
  for (size_t i = 0; i < summands.size(); ++i) {
    const z3::expr &p = summands[i];
    if (!isSymbolicProduct(p))
      continue;
    std::vector<z3::expr> rest;
    for (size_t j = 0; j < summands.size(); ++j)
      if (j != i)
        rest.push_back(summands[j]);
    forms.push_back({p.arg(1), {e, p.arg(0), rest}});
    forms.push_back({p.arg(0), {e, p.arg(1), rest}});
  }
  return forms;
}

/// A dividend x = q * C + r of the divisor C * k, with the conditions
/// (r < C, no wrap-around) under which (L7) holds.
struct DigitForm {
  z3::expr x, q, r, pre;
};

/// `d` as C * k with C symbolic and k a non-zero constant (k = 1 for a
/// symbolic d that is no such product).
std::optional<std::pair<z3::expr, uint64_t>> scaledRadix(const z3::expr &d) {
  if (isApp(d, Z3_OP_BMUL) && d.num_args() == 2)
    for (int i = 0; i < 2; ++i)
      if (d.arg(i).is_numeral() && !d.arg(1 - i).is_numeral()) {
        uint64_t k = d.arg(i).get_numeral_uint64();
        if (k == 0)
          return std::nullopt;
        return std::make_pair(d.arg(1 - i), k);
      }
  if (d.is_numeral())
    return std::nullopt;
  return std::make_pair(d, uint64_t(1));
}

/// At most this value for a factor whose products are read case by case
/// (L16).
constexpr uint64_t kSmallFactor = 16;

/// An upper bound of `e`'s value read off its form: a constant, a remainder
/// by one, the minimum with one (a group's tile rows, min(rows left, 8)).
std::optional<uint64_t> formBound(const z3::expr &e, unsigned depth = 0) {
  if (e.is_numeral()) {
    uint64_t v;
    if (e.is_numeral_u64(v))
      return v;
    return std::nullopt;
  }
  if (!e.is_app() || depth > 4)
    return std::nullopt;
  auto sub = [&](const z3::expr &x) { return formBound(x, depth + 1); };
  switch (e.decl().decl_kind()) {
  case Z3_OP_BUREM:
  case Z3_OP_BUREM_I: {
    uint64_t k;
    if (e.arg(1).is_numeral_u64(k) && k > 0)
      return k - 1;
    return sub(e.arg(0));
  }
  case Z3_OP_BUDIV:
  case Z3_OP_BUDIV_I:
    return sub(e.arg(0));
  case Z3_OP_ITE: {
    std::optional<uint64_t> a = sub(e.arg(1)), b = sub(e.arg(2));
    if (a && b)
      return std::max(*a, *b);
    // ite(x < y, x, y) and ite(x <= y, x, y): the minimum, bounded by
    // either operand's bound.
    z3::expr c = e.arg(0);
    Z3_decl_kind k = c.decl().decl_kind();
    if ((k == Z3_OP_ULT || k == Z3_OP_ULEQ) && z3::eq(c.arg(0), e.arg(1)) &&
        z3::eq(c.arg(1), e.arg(2)))
      return a ? a : b;
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

/// formBound(d) when it is at most kSmallFactor: a factor or divisor whose
/// values the lemmas read case by case (L16, L17, L19).
std::optional<uint64_t> smallRange(const z3::expr &d) {
  std::optional<uint64_t> bound = formBound(d);
  if (bound && *bound <= kSmallFactor)
    return bound;
  return std::nullopt;
}

struct Collector {
  Groups<Dividend> dividends;                     // by divisor
  Groups<std::pair<z3::expr, z3::expr>> products; // by factor: (other, a*d)
  /// Bit-vector equalities between two terms with products: where counters
  /// of two instances are compared (slots, tile indices).
  std::vector<std::pair<z3::expr, z3::expr>> equalities;
  std::set<unsigned> seen;
  /// (dividend, divisor) ids -> the entry in `dividends`.
  std::map<std::pair<unsigned, unsigned>, Dividend *> divisions;
  /// Ids of the quotients by constants (x / 8).
  std::set<unsigned> constantQuotients;

  /// One entry per (dividend, divisor): x / d and x % d share it.
  void addDivision(const z3::expr &x, const z3::expr &d, bool remainder) {
    auto key = std::make_pair(x.id(), d.id());
    auto it = divisions.find(key);
    if (it == divisions.end()) {
      Dividend *entry = dividends.add(d, {x});
      if (!entry)
        return;
      it = divisions.emplace(key, entry).first;
    }
    (remainder ? it->second->remainder : it->second->quotient) = true;
  }

  void visit(const z3::expr &root) {
    forEachSubterm({root}, seen, [&](const z3::expr &e) { record(e); });
  }

  void record(const z3::expr &e) {
    Z3_decl_kind k = e.decl().decl_kind();
    if (k == Z3_OP_BUDIV && e.arg(1).is_numeral())
      constantQuotients.insert(e.id());
    if ((k == Z3_OP_BUDIV || k == Z3_OP_BUDIV_I || k == Z3_OP_BUREM ||
         k == Z3_OP_BUREM_I) &&
        !e.arg(1).is_numeral()) {
      addDivision(e.arg(0), e.arg(1), k == Z3_OP_BUREM || k == Z3_OP_BUREM_I);
      return;
    }
    if (isSymbolicProduct(e)) {
      products.add(e.arg(1), {e.arg(0), e});
      products.add(e.arg(0), {e.arg(1), e});
      return;
    }
    if (k == Z3_OP_EQ && e.num_args() == 2 && e.arg(0).is_bv() &&
        equalities.size() < kMaxEqualities && !radixForms(e.arg(0)).empty() &&
        !radixForms(e.arg(1)).empty())
      equalities.push_back({e.arg(0), e.arg(1)});
  }
};

z3::expr sumOf(z3::context &ctx, const std::vector<z3::expr> &terms,
               unsigned width) {
  if (terms.empty())
    return ctx.bv_val(0, width);
  z3::expr s = terms[0];
  for (size_t i = 1; i < terms.size(); ++i)
    s = s + terms[i];
  return s;
}

/// (L3) for two terms X_i = q_i * C + r_i + s, s the summands both share
/// (cancelled first: counters are compared with offsets, "slab i + 3"). With
/// r_i in [a_i C, (a_i + 1) C) for a_i in {0, 1}, X_i = (q_i + a_i) * C +
/// (r_i - a_i C) is Euclid's decomposition, so a counter after a loop
/// (q * C + trip) lines up with one inside the next tile's loop.
void radixLemmas(z3::context &ctx, const z3::expr &C, const RadixTerm &t1,
                 const RadixTerm &t2, std::vector<z3::expr> &out) {
  unsigned w = C.get_sort().bv_size();
  // Cancel the summands both sides share (the constants up to the smaller).
  std::vector<z3::expr> s1, s2;
  uint64_t k1 = 0, k2 = 0;
  std::multiset<unsigned> other;
  for (const z3::expr &e : t2.rest)
    if (!e.is_numeral())
      other.insert(e.id());
  std::multiset<unsigned> shared;
  for (const z3::expr &e : t1.rest) {
    if (e.is_numeral()) {
      k1 += e.get_numeral_uint64();
      continue;
    }
    auto it = other.find(e.id());
    if (it != other.end()) {
      other.erase(it);
      shared.insert(e.id());
    } else {
      s1.push_back(e);
    }
  }
  for (const z3::expr &e : t2.rest) {
    if (e.is_numeral()) {
      k2 += e.get_numeral_uint64();
      continue;
    }
    auto it = shared.find(e.id());
    if (it != shared.end())
      shared.erase(it);
    else
      s2.push_back(e);
  }
  // Constants are summed modulo 2^w (a summand 2^w - k stands for - k).
  uint64_t mask = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  k1 &= mask;
  k2 &= mask;
  uint64_t m = std::min(k1, k2);
  if (k1 > m)
    s1.push_back(ctx.bv_val(k1 - m, w));
  if (k2 > m)
    s2.push_back(ctx.bv_val(k2 - m, w));
  z3::expr r1 = sumOf(ctx, s1, w), r2 = sumOf(ctx, s2, w);
  auto exact = [&](const RadixTerm &t, const z3::expr &r) {
    return z3::bvmul_no_overflow(t.q, C, false) &&
           z3::bvadd_no_overflow(t.q * C, r, false);
  };
  z3::expr same = t1.sum == t2.sum;
  z3::expr both = exact(t1, r1) && exact(t2, r2);
  z3::expr one = ctx.bv_val(1, w);
  // r in [a C, (a + 1) C): digit q + a, remainder r - a C.
  auto window = [&](const z3::expr &r, int a) {
    return a == 0 ? z3::ult(r, C) : z3::uge(r, C) && z3::ult(r - C, C);
  };
  for (int a1 = 0; a1 < 2; ++a1)
    for (int a2 = 0; a2 < 2; ++a2) {
      z3::expr d1 = a1 ? t1.q + one : t1.q, d2 = a2 ? t2.q + one : t2.q;
      z3::expr m1 = a1 ? r1 - C : r1, m2 = a2 ? r2 - C : r2;
      out.push_back(z3::implies(both && window(r1, a1) && window(r2, a2),
                                same == (d1 == d2 && m1 == m2)));
    }
}

} // namespace

std::vector<z3::expr>
argus::verify::detail::arithmeticLemmas(z3::context &ctx,
                                        const z3::expr_vector &roots) {
  Collector c;
  // The check's own conditions come last: visit them first, so that the
  // caps drop the terms of unrelated side conditions.
  for (unsigned i = roots.size(); i-- > 0;)
    c.visit(roots[i]);
  std::vector<z3::expr> out;

  // (L15) x / (C * k) == (x / k) / C and x % (C * k) == ((x / k) % C) * k
  // + x % k (k a constant) where the query has x / k: a grouped raster
  // reads a tile's group off t / (G * n) and its column off (t / G) % n.
  // The divisions of x / k by C join the others (for L2 and the rest).
  std::vector<std::pair<z3::expr, z3::expr>> nested; // (x / k, C)
  for (auto &[id, entry] : c.dividends.byKey) {
    const z3::expr &d = entry.first;
    std::optional<std::pair<z3::expr, uint64_t>> ck = scaledRadix(d);
    if (!ck || ck->second < 2)
      continue;
    unsigned w = d.get_sort().bv_size();
    z3::expr C = ck->first, k = ctx.bv_val(ck->second, w);
    for (const Dividend &x : entry.second) {
      z3::expr xk = z3::udiv(x.x, k);
      if (!c.constantQuotients.count(xk.id()))
        continue;
      z3::expr pre =
          C != ctx.bv_val(0, w) && z3::bvmul_no_overflow(C, k, false);
      if (x.quotient)
        out.push_back(z3::implies(pre, z3::udiv(x.x, d) == z3::udiv(xk, C)));
      if (x.remainder)
        out.push_back(z3::implies(
            pre, z3::urem(x.x, d) == z3::urem(xk, C) * k + z3::urem(x.x, k)));
      nested.push_back({xk, C});
    }
  }
  for (auto &[xk, C] : nested) {
    c.addDivision(xk, C, false);
    c.addDivision(xk, C, true);
  }
  // (L18) Euclid's division against the query's multiples a * d of the
  // divisor: x / d == a means x == a * d + x % d (the remainder of a tile
  // index in the last, partial group of a grouped raster is the index less
  // the full groups' tiles). Only with products already in the query: a
  // new product (x / d) * d is a new variable in every query with x % d.
  for (auto &[id, entry] : c.dividends.byKey) {
    auto prods = c.products.byKey.find(id);
    if (prods == c.products.byKey.end())
      continue;
    const z3::expr &d = entry.first;
    for (const Dividend &x : entry.second)
      if (x.quotient && x.remainder)
        for (auto &[a, p] : prods->second.second)
          out.push_back(
              z3::implies(z3::udiv(x.x, d) == a, x.x == p + z3::urem(x.x, d)));
  }

  for (auto &[id, entry] : c.dividends.byKey) {
    const z3::expr &d = entry.first;
    const std::vector<Dividend> &xs = entry.second;
    unsigned w = d.get_sort().bv_size();
    z3::expr nz = d != ctx.bv_val(0, w);
    // (L1) against every product with d as a factor, and (L10) a factor
    // below a quotient bounds the product (a size cap written as
    // `rows < cap / S`).
    auto prods = c.products.byKey.find(id);
    if (prods != c.products.byKey.end())
      for (const Dividend &x : xs)
        if (x.quotient)
          for (auto &[a, p] : prods->second.second) {
            out.push_back(
                z3::implies(nz && z3::bvmul_no_overflow(a, d, false),
                            z3::ult(x.x, p) == z3::ult(z3::udiv(x.x, d), a)));
            out.push_back(z3::implies(nz && z3::ult(a, z3::udiv(x.x, d)),
                                      z3::bvmul_no_overflow(a, d, false) &&
                                          z3::bvadd_no_overflow(p, d, false) &&
                                          z3::ule(p + d, x.x)));
            // (L12) x rounded down to a multiple of d: (x / d) * d.
            if (isApp(a, Z3_OP_BUDIV) || isApp(a, Z3_OP_BUDIV_I))
              if (z3::eq(a.arg(0), x.x) && z3::eq(a.arg(1), d))
                out.push_back(z3::implies(
                    nz, z3::bvmul_no_overflow(a, d, false) && z3::ule(p, x.x) &&
                            z3::ult(x.x - p, d)));
          }
    for (const Dividend &x : xs) {
      // (L4) a dividend in radix d: q * d + r with r < d.
      for (auto &[C, t] : radixForms(x.x))
        if (C.id() == d.id()) {
          z3::expr r = sumOf(ctx, t.rest, w);
          z3::expr conc = ctx.bool_val(true);
          if (x.quotient)
            conc = conc && z3::udiv(x.x, d) == t.q;
          if (x.remainder)
            conc = conc && z3::urem(x.x, d) == r;
          out.push_back(z3::implies(
              z3::ult(r, d) && z3::bvmul_no_overflow(t.q, d, false) &&
                  z3::bvadd_no_overflow(t.q * d, r, false),
              conc));
        }
      // (L13) a quotient is at most its dividend (a persistent block's
      // count of tiles done, (t - b) / grid, is below its tile index).
      if (x.quotient)
        out.push_back(z3::implies(nz, z3::ule(z3::udiv(x.x, d), x.x)));
      // (L6) the remainder's range.
      if (x.remainder)
        out.push_back(z3::implies(nz, z3::ult(z3::urem(x.x, d), d) &&
                                          z3::ule(z3::urem(x.x, d), x.x)));
      // (L5) y rounded down to a multiple of d: y - y % d.
      if (x.remainder && isApp(x.x, Z3_OP_BSUB) && x.x.num_args() == 2) {
        z3::expr y = x.x.arg(0), m = x.x.arg(1);
        bool isRem = isApp(m, Z3_OP_BUREM) || isApp(m, Z3_OP_BUREM_I);
        if (isRem && z3::eq(m.arg(0), y) && z3::eq(m.arg(1), d))
          out.push_back(z3::implies(nz, z3::uge(y, m) && z3::urem(x.x, d) ==
                                                             ctx.bv_val(0, w)));
      }
    }
    // (L7) a dividend in radix C over the divisor d = C * k (k a constant:
    // a grouped raster divides a block index by G grid rows): the digit
    // carries the division. Each instance records its terms for (L8).
    std::optional<std::pair<z3::expr, uint64_t>> ck = scaledRadix(d);
    std::vector<DigitForm> digits;
    if (ck)
      for (const Dividend &x : xs)
        for (auto &[C, t] : radixForms(x.x)) {
          if (C.id() != ck->first.id())
            continue;
          z3::expr k = ctx.bv_val(ck->second, w);
          z3::expr r = sumOf(ctx, t.rest, w);
          z3::expr pre = z3::ult(r, C) && z3::bvmul_no_overflow(C, k, false) &&
                         z3::bvmul_no_overflow(t.q, C, false) &&
                         z3::bvadd_no_overflow(t.q * C, r, false);
          z3::expr conc = ctx.bool_val(true);
          if (x.quotient)
            conc = conc && z3::udiv(x.x, d) == z3::udiv(t.q, k);
          if (x.remainder)
            conc = conc && z3::urem(x.x, d) == z3::urem(t.q, k) * C + r;
          out.push_back(z3::implies(pre, conc));
          if (x.remainder)
            digits.push_back({x.x, t.q, r, pre});
          break;
        }
    // (L8) two such remainders are equal iff their digits agree: the
    // remainder (q % k) * C + r is itself a radix-C number below d.
    for (size_t i = 0; i < digits.size(); ++i)
      for (size_t j = i + 1; j < digits.size(); ++j) {
        const DigitForm &a = digits[i], &b = digits[j];
        z3::expr k = ctx.bv_val(ck->second, w);
        out.push_back(z3::implies(
            a.pre && b.pre,
            (z3::urem(a.x, d) == z3::urem(b.x, d)) ==
                (z3::urem(a.q, k) == z3::urem(b.q, k) && a.r == b.r)));
      }
    // (L2) between every two dividends: equal quotients and remainders
    // where both occur, else equal dividends give equal divisions.
    for (size_t i = 0; i < xs.size(); ++i)
      for (size_t j = i + 1; j < xs.size(); ++j) {
        const Dividend &x = xs[i], &y = xs[j];
        if (x.quotient && x.remainder && y.quotient && y.remainder) {
          out.push_back(z3::implies(
              nz, (z3::udiv(x.x, d) == z3::udiv(y.x, d) &&
                   z3::urem(x.x, d) == z3::urem(y.x, d)) == (x.x == y.x)));
          continue;
        }
        z3::expr same = ctx.bool_val(true);
        if (x.quotient && y.quotient)
          same = same && z3::udiv(x.x, d) == z3::udiv(y.x, d);
        if (x.remainder && y.remainder)
          same = same && z3::urem(x.x, d) == z3::urem(y.x, d);
        if (!same.is_true())
          out.push_back(z3::implies(x.x == y.x, same));
      }
  }

  // (L19) two divisions with equal divisors of different terms (a group's
  // rows read by two instances): equal quotients and remainders mean
  // equal dividends (x % 0 == x makes it hold for d == 0 too). Only
  // divisors of small range (as L16): the pairs grow quadratically.
  std::vector<std::pair<z3::expr, const Dividend *>> whole;
  for (auto &[id, entry] : c.dividends.byKey) {
    if (!smallRange(entry.first))
      continue;
    for (const Dividend &x : entry.second)
      if (x.quotient && x.remainder)
        whole.push_back({entry.first, &x});
  }
  for (size_t i = 0; i < whole.size(); ++i)
    for (size_t j = i + 1; j < whole.size(); ++j) {
      auto &[d1, x] = whole[i];
      auto &[d2, y] = whole[j];
      if (z3::eq(d1, d2))
        continue;
      out.push_back(z3::implies(d1 == d2 &&
                                    z3::udiv(x->x, d1) == z3::udiv(y->x, d2) &&
                                    z3::urem(x->x, d1) == z3::urem(y->x, d2),
                                x->x == y->x));
    }

  // (L9) monotonicity of products with a shared factor: a1 < a2 means
  // a1 * d + d <= a2 * d (a block's rows end where the next block's
  // begin, when both are products of a symbolic size).
  for (auto &[id, entry] : c.products.byKey) {
    const z3::expr &d = entry.first;
    const auto &ps = entry.second;
    for (size_t i = 0; i < ps.size(); ++i)
      for (size_t j = 0; j < ps.size(); ++j) {
        if (i == j)
          continue;
        // The same factors in another order (d * a and a * d).
        if (z3::eq(ps[i].first, ps[j].first)) {
          if (i < j && !z3::eq(ps[i].second, ps[j].second))
            out.push_back(ps[i].second == ps[j].second);
          continue;
        }
        const z3::expr &a1 = ps[i].first, &p1 = ps[i].second;
        const z3::expr &a2 = ps[j].first, &p2 = ps[j].second;
        out.push_back(z3::implies(
            z3::ult(a1, a2) && z3::bvmul_no_overflow(a2, d, false),
            z3::bvmul_no_overflow(a1, d, false) &&
                z3::bvadd_no_overflow(p1, d, false) && z3::ule(p1 + d, p2)));
        // (L11) congruence, which the abstraction of products as fresh
        // variables (KernelVerifier::abstractNonlinear) forgets.
        if (i < j)
          out.push_back(z3::implies(a1 == a2, p1 == p2));
      }
  }

  // (L16) a product with a factor of small range, case by case: d == j
  // means a * d == a * j, which is linear (a group's tile rows times a
  // column index; a product of two unbounded factors has no such reading).
  for (auto &[id, entry] : c.products.byKey) {
    const z3::expr &d = entry.first;
    std::optional<uint64_t> bound = smallRange(d);
    if (!bound)
      continue;
    unsigned w = d.get_sort().bv_size();
    for (auto &[a, p] : entry.second)
      for (uint64_t j = 0; j <= *bound; ++j) {
        z3::expr jv = ctx.bv_val(j, w);
        out.push_back(z3::implies(
            d == jv, p == a * jv && z3::bvmul_no_overflow(a, d, false) ==
                                        z3::bvmul_no_overflow(a, jv, false)));
      }
  }

  // (L17) likewise a quotient or remainder by a divisor of small range:
  // d == j means x / d == x / j and x % d == x % j, divisions by constants.
  for (auto &[id, entry] : c.dividends.byKey) {
    const z3::expr &d = entry.first;
    std::optional<uint64_t> bound = smallRange(d);
    if (!bound)
      continue;
    unsigned w = d.get_sort().bv_size();
    for (const Dividend &x : entry.second)
      for (uint64_t j = 0; j <= *bound; ++j) {
        z3::expr jv = ctx.bv_val(j, w);
        z3::expr same = ctx.bool_val(true);
        if (x.quotient)
          same = same && z3::udiv(x.x, d) == z3::udiv(x.x, jv);
        if (x.remainder)
          same = same && z3::urem(x.x, d) == z3::urem(x.x, jv);
        out.push_back(z3::implies(d == jv, same));
      }
  }

  // (L14) trailing zeros of the low bits of a product (an alignment
  // check's address row * K, taken modulo the vector's bytes): a factor
  // that is a multiple of 2^j makes the product one (K % 8 == 0 aligns
  // every row; the abstraction's fresh product variable forgets it). Only
  // narrow products (such low-bit extracts): on full-width products of tile
  // arithmetic the lemmas cost more search than they save.
  std::set<unsigned> lowBitsDone;
  for (auto &[id, entry] : c.products.byKey) {
    const z3::expr &d = entry.first;
    for (auto &[a, p] : entry.second) {
      unsigned w = p.get_sort().bv_size();
      if (w > 8 || !lowBitsDone.insert(p.id()).second)
        continue;
      for (unsigned bits = 1; bits <= w; ++bits) {
        uint64_t m = (uint64_t(1) << bits) - 1;
        z3::expr mask = ctx.bv_val(m, w), zero = ctx.bv_val(0, w);
        out.push_back(z3::implies((a & mask) == zero || (d & mask) == zero,
                                  (p & mask) == zero));
      }
    }
  }

  // (L3) between the two sides of each equality, per shared radix.
  for (auto &[a, b] : c.equalities)
    for (auto &[ca, ta] : radixForms(a))
      for (auto &[cb, tb] : radixForms(b))
        if (ca.id() == cb.id())
          radixLemmas(ctx, ca, ta, tb, out);
  return out;
}

z3::expr argus::verify::detail::strideResidueLemma(const z3::expr &iv,
                                                   const z3::expr &lb,
                                                   const z3::expr &step) {
  z3::context &ctx = iv.ctx();
  unsigned w = iv.get_sort().bv_size();
  z3::expr zero = ctx.bv_val(0, w);
  return z3::implies(step != zero && z3::ult(lb, step) && z3::uge(iv, lb) &&
                         z3::urem(iv - lb, step) == zero,
                     z3::urem(iv, step) == lb);
}
