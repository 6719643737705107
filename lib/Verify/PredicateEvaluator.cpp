//===- PredicateEvaluator.cpp - tag predicates, symbolic and concrete -----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "PredicateEvaluator.h"
#include "ConcreteIndex.h"
#include "SymbolicTerms.h"

using namespace mlir::argus;

namespace argus::verify::detail {

z3::expr PredicateEvaluator::ref(const TagExpr &e) {
  auto it = ops->find(e.operand);
  if (it == ops->end())
    unsupported("operand '" + e.operand + "' has no tags here");
  auto f = it->second.find(e.field);
  if (f == it->second.end())
    unsupported("field '" + e.operand + "." + e.field +
                "' is not carried here (not defined on every path)");
  return f->second;
}

z3::expr PredicateEvaluator::eval(const TagExpr &e) {
  auto c = [&](int i) { return eval(*e.children[i]); };
  switch (e.kind) {
  case TagExpr::Kind::Const:
    return bv(e.value);
  case TagExpr::Kind::Ref:
    return ref(e);
  case TagExpr::Kind::Neg:
    return -c(0);
  case TagExpr::Kind::Add:
    return c(0) + c(1);
  case TagExpr::Kind::Sub:
    return c(0) - c(1);
  case TagExpr::Kind::Mul:
    return c(0) * c(1);
  case TagExpr::Kind::Div: {
    z3::expr l = c(0), r = c(1);
    return floorDivTerm(l, r);
  }
  case TagExpr::Kind::Rem:
    return z3::smod(c(0), c(1));
  case TagExpr::Kind::Eq:
    return c(0) == c(1);
  case TagExpr::Kind::Ne:
    return c(0) != c(1);
  case TagExpr::Kind::Lt:
    return c(0) < c(1);
  case TagExpr::Kind::Le:
    return c(0) <= c(1);
  case TagExpr::Kind::Gt:
    return c(0) > c(1);
  case TagExpr::Kind::Ge:
    return c(0) >= c(1);
  case TagExpr::Kind::And:
    return c(0) && c(1);
  case TagExpr::Kind::Or:
    return c(0) || c(1);
  case TagExpr::Kind::Not:
    return !c(0);
  }
  unsupported("predicate node");
}

std::optional<int64_t> PredicateEvaluator::concrete(
    const TagExpr &e,
    const std::map<std::string, std::map<std::string, int64_t>> &v) {
  std::vector<int64_t> ch;
  for (auto &x : e.children) {
    auto r = concrete(*x, v);
    if (!r)
      return std::nullopt;
    ch.push_back(*r);
  }
  switch (e.kind) {
  case TagExpr::Kind::Const:
    return e.value;
  case TagExpr::Kind::Ref: {
    auto it = v.find(e.operand);
    if (it == v.end() || !it->second.count(e.field))
      return std::nullopt;
    return it->second.at(e.field);
  }
  case TagExpr::Kind::Neg:
    return -ch[0];
  case TagExpr::Kind::Add:
    return ch[0] + ch[1];
  case TagExpr::Kind::Sub:
    return ch[0] - ch[1];
  case TagExpr::Kind::Mul:
    return ch[0] * ch[1];
  case TagExpr::Kind::Div:
    if (!ch[1])
      return std::nullopt;
    return floorDiv(ch[0], ch[1]);
  case TagExpr::Kind::Rem:
    if (!ch[1])
      return std::nullopt;
    return floorMod(ch[0], ch[1]);
  case TagExpr::Kind::Eq:
    return ch[0] == ch[1];
  case TagExpr::Kind::Ne:
    return ch[0] != ch[1];
  case TagExpr::Kind::Lt:
    return ch[0] < ch[1];
  case TagExpr::Kind::Le:
    return ch[0] <= ch[1];
  case TagExpr::Kind::Gt:
    return ch[0] > ch[1];
  case TagExpr::Kind::Ge:
    return ch[0] >= ch[1];
  case TagExpr::Kind::And:
    return ch[0] && ch[1];
  case TagExpr::Kind::Or:
    return ch[0] || ch[1];
  case TagExpr::Kind::Not:
    return !ch[0];
  }
  return std::nullopt;
}

} // namespace argus::verify::detail
