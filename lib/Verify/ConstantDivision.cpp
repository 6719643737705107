//===- ConstantDivision.cpp - quotients by constants without dividers -----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "ConstantDivision.h"
#include "Subterms.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace argus::verify::detail {

/// The divisor of `e` when it is an unsigned quotient or remainder by a
/// constant above 1 that is not a power of two.
static std::optional<uint64_t> constantDivisor(const z3::expr &e) {
  if (!e.is_app() || e.num_args() != 2)
    return std::nullopt;
  switch (e.decl().decl_kind()) {
  case Z3_OP_BUDIV:
  case Z3_OP_BUDIV_I:
  case Z3_OP_BUREM:
  case Z3_OP_BUREM_I:
    break;
  default:
    return std::nullopt;
  }
  uint64_t c = 0;
  if (!e.arg(1).is_numeral_u64(c) || c < 3 || (c & (c - 1)) == 0)
    return std::nullopt;
  return c;
}

static bool isQuotient(const z3::expr &e) {
  auto k = e.decl().decl_kind();
  return k == Z3_OP_BUDIV || k == Z3_OP_BUDIV_I;
}

z3::expr_vector eliminateConstantDivisions(z3::context &ctx,
                                           const z3::expr_vector &assertions) {
  // One (quotient, remainder) pair per dividend and divisor.
  std::map<std::pair<unsigned, uint64_t>, std::pair<z3::expr, z3::expr>> pairs;
  std::vector<std::pair<z3::expr, uint64_t>> dividends;
  z3::expr_vector from(ctx), to(ctx);
  forEachSubterm(assertions, [&](const z3::expr &e) {
    std::optional<uint64_t> c = constantDivisor(e);
    if (!c)
      return;
    z3::expr x = e.arg(0);
    auto key = std::make_pair(x.id(), *c);
    auto it = pairs.find(key);
    if (it == pairs.end()) {
      std::string n = std::to_string(pairs.size());
      z3::sort s = x.get_sort();
      it = pairs
               .emplace(key,
                        std::make_pair(ctx.constant(("cdiv!q" + n).c_str(), s),
                                       ctx.constant(("cdiv!r" + n).c_str(), s)))
               .first;
      dividends.push_back({x, *c});
    }
    from.push_back(e);
    to.push_back(isQuotient(e) ? it->second.first : it->second.second);
  });
  if (from.empty())
    return assertions;

  z3::expr_vector out(ctx);
  for (unsigned i = 0; i < assertions.size(); ++i)
    out.push_back(assertions[i].substitute(from, to));
  for (auto &[x, c] : dividends) {
    auto &[q, r] = pairs.at({x.id(), c});
    // q * C + r <= (2^w - 1) + C - 1 < 2^(w + bits): no wrap-around in
    // the wider width.
    unsigned bits = 1;
    while (bits < 64 && (uint64_t(1) << bits) <= c)
      ++bits;
    unsigned w = x.get_sort().bv_size();
    z3::expr cw = ctx.bv_val(static_cast<uint64_t>(c), w + bits);
    // The dividend may itself contain quotients by constants.
    z3::expr xs = x.substitute(from, to);
    out.push_back(z3::ult(r, ctx.bv_val(static_cast<uint64_t>(c), w)));
    out.push_back(z3::zext(xs, bits) ==
                  z3::zext(q, bits) * cw + z3::zext(r, bits));
  }
  return out;
}

} // namespace argus::verify::detail
