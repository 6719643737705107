//===- Subterms.h - visit each distinct subterm of a Z3 query --*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A query's terms are shared (a tile index occurs in hundreds of
// constraints), so its DAG is far smaller than its tree: the passes over a
// query (nonlinear abstraction, constant quotients, arithmetic lemmas) visit
// each distinct application once. Constructions of witnesses (an
// instance solved from another's values) substitute terms for constants.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_SUBTERMS_H
#define ARGUS_LIB_VERIFY_SUBTERMS_H

#include <z3++.h>

#include <set>
#include <vector>

namespace argus::verify::detail {

/// Calls `f` on every application term reachable from `stack` that is not
/// in `seen` yet (depth first, the last root first), once each; `seen`
/// keeps the visited terms across calls.
template <typename F>
void forEachSubterm(std::vector<z3::expr> stack, std::set<unsigned> &seen,
                    F &&f) {
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (!e.is_app() || !seen.insert(e.id()).second)
      continue;
    for (unsigned i = 0; i < e.num_args(); ++i)
      stack.push_back(e.arg(i));
    f(e);
  }
}

/// The same over the terms of `roots`, with no terms seen before.
template <typename F> void forEachSubterm(const z3::expr_vector &roots, F &&f) {
  std::vector<z3::expr> stack;
  for (unsigned i = 0; i < roots.size(); ++i)
    stack.push_back(roots[i]);
  std::set<unsigned> seen;
  forEachSubterm(std::move(stack), seen, f);
}

/// `e` with each constant of `from` replaced by the term of `to` at the
/// same position (simultaneously).
inline z3::expr substituted(const z3::expr &e,
                            const std::vector<z3::expr> &from,
                            const std::vector<z3::expr> &to) {
  if (from.empty())
    return e;
  z3::expr_vector f(e.ctx()), t(e.ctx());
  for (size_t i = 0; i < from.size(); ++i) {
    f.push_back(from[i]);
    t.push_back(to[i]);
  }
  return z3::expr(e).substitute(f, t);
}

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_SUBTERMS_H
