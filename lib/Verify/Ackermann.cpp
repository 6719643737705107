//===- Ackermann.cpp - function applications as variables -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Ackermann.h"
#include "Subterms.h"

#include <string>

namespace argus::verify::detail {

FunctionApplications functionApplications(const z3::expr_vector &roots) {
  z3::context &ctx = roots.ctx();
  FunctionApplications apps(ctx);
  forEachSubterm(roots, [&](const z3::expr &e) {
    if (e.num_args() == 0 || e.decl().decl_kind() != Z3_OP_UNINTERPRETED)
      return;
    apps.applied.push_back(e);
    std::string v = "applied!" + std::to_string(apps.applied.size());
    apps.vars.push_back(ctx.constant(v.c_str(), e.get_sort()));
  });
  return apps;
}

std::vector<z3::expr> congruenceLemmas(const FunctionApplications &apps,
                                       const z3::expr_vector &from,
                                       const z3::expr_vector &to) {
  std::vector<z3::expr> out;
  z3::context &ctx = apps.applied.ctx();
  for (unsigned i = 0; i < apps.applied.size(); ++i)
    for (unsigned j = i + 1; j < apps.applied.size(); ++j) {
      const z3::expr &a = apps.applied[i], &b = apps.applied[j];
      if (!z3::eq(a.decl(), b.decl()))
        continue;
      z3::expr same = ctx.bool_val(true);
      for (unsigned k = 0; k < a.num_args(); ++k)
        same = same && a.arg(k) == b.arg(k);
      out.push_back(
          z3::implies(same, apps.vars[i] == apps.vars[j]).substitute(from, to));
    }
  return out;
}

} // namespace argus::verify::detail
