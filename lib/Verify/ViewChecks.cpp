//===- ViewChecks.cpp - the implicit checks of global views ---------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Global views are trusted nowhere else, so two checks are made without
// being asked:
//   tensor-name  each view name (argus.view / argus.gather_view) is bound to
//                one tensor argument and each tensor argument to one name;
//   view-tag     an argus.tag on a (non-gather) global view agrees with the
//                element's global coordinate g = view offsets + tile
//                coordinate (of an im2col view: its coordinate in the
//                im2col matrix): the map at the tile coordinate with its
//                symbols equals the map at d := g with every symbol that
//                provably equals a view offset replaced by 0
//                (docs/Verifier.md).
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/TagFields.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

/// The view op (argus.view or argus.gather_view) a memory tile looks
/// through tags, transposes and reinterprets to; null when there is none.
Operation *viewOf(Value tile) {
  while (Operation *def = tile.getDefiningOp()) {
    if (isa<ViewOp, GatherViewOp, Im2colViewOp>(def))
      return def;
    if (!isa<TagOp, TransposeOp, ReinterpretOp>(def))
      return nullptr;
    tile = def->getOperand(0);
  }
  return nullptr;
}

namespace {

/// Whether `op` tags a global tile that is not a gather: such tags are
/// checked against the view's offsets (a tile that is not a view at all
/// is checked too, and is unknown).
bool tagsGlobalView(TagOp op) {
  auto ty = dyn_cast<TileType>(op.getInput().getType());
  if (!ty || ty.getMemorySpace() != MemorySpace::Global)
    return false;
  return !isa_and_nonnull<GatherViewOp>(viewOf(op.getInput()));
}

std::string listStr(const std::vector<int64_t> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

} // namespace

void KernelVerifier::checkViews(std::vector<CheckResult> &out) {
  std::map<std::string, Operation *> byName;
  std::map<unsigned, Operation *> byTensor;
  func.walk([&](Operation *op) {
    if (isa<ViewOp, GatherViewOp, Im2colViewOp>(op))
      out.push_back(checkTensorName(op, byName, byTensor));
  });
  func.walk([&](TagOp op) {
    if (tagsGlobalView(op))
      out.push_back(checkViewTag(op));
  });
}

CheckResult
KernelVerifier::checkTensorName(Operation *view,
                                std::map<std::string, Operation *> &byName,
                                std::map<unsigned, Operation *> &byTensor) {
  CheckResult res = newCheck("tensor-name", view, view);
  res.predicate = "each view name is bound to one tensor argument and each "
                  "tensor argument to one view name across the kernel";
  runCheck({&res}, [&](Query &Q) {
    std::string name = viewName(view);
    std::optional<unsigned> arg = getTensorArgument(viewedTensor(view));
    if (!arg)
      unsupported("the viewed memref is not an argument of the kernel");
    std::vector<std::string> notes;
    auto describe = [](Operation *v, unsigned a, const std::string &n) {
      return opDesc(v) + " views kernel argument " + std::to_string(a) +
             " (arg" + std::to_string(a) + ") as \"" + n + "\"";
    };
    auto n = byName.find(name);
    if (n != byName.end()) {
      unsigned other = *getTensorArgument(viewedTensor(n->second));
      if (other != *arg)
        notes.push_back(describe(n->second, other, name) +
                        ": one name for two tensors");
    }
    auto t = byTensor.find(*arg);
    if (t != byTensor.end()) {
      std::string other = viewName(t->second);
      if (other != name)
        notes.push_back(describe(t->second, *arg, other) +
                        ": two names for one tensor");
    }
    byName.emplace(name, view);
    byTensor.emplace(*arg, view);
    if (notes.empty()) {
      res.status = Status::Proved;
      return;
    }
    notes.insert(notes.begin(), describe(view, *arg, name));
    // The names are wrong whether or not the view runs; report an
    // execution that reaches it when there is one.
    Inst in = freshInst(view);
    std::optional<z3::model> m;
    z3::check_result r = solve({in.guard}, m);
    if (r == z3::unknown) {
      res.status = Status::Unknown;
      res.reason = "solver returned unknown (timeout?)";
      return;
    }
    Counterexample cx;
    if (r == z3::sat) {
      preferSmall({in.guard}, in, m);
      std::string bad = replay(*m);
      if (replayDisagrees(res, bad))
        return;
      fillCommon(cx, *m, in);
    } else {
      notes.push_back("no execution reaches this view (its loops are empty "
                      "for every kernel argument)");
    }
    cx.notes = notes;
    res.counterexamples.push_back(cx);
    res.status = Status::Violated;
  });
  return res;
}

/// The constant term C of a tag map result `d_i + C` (C a sum of constants
/// at the top level, the rest a function of d_i alone) when C is tag
/// coordinate i's constant view offset.
static std::optional<int64_t>
foldedOffset(AffineExpr e,
             const std::vector<std::optional<int64_t>> &constantOffset) {
  int64_t constant = 0;
  SmallVector<AffineExpr> rest;
  std::function<void(AffineExpr)> flatten = [&](AffineExpr x) {
    auto bin = dyn_cast<AffineBinaryOpExpr>(x);
    if (bin && bin.getKind() == AffineExprKind::Add) {
      flatten(bin.getLHS());
      flatten(bin.getRHS());
    } else if (auto c = dyn_cast<AffineConstantExpr>(x)) {
      constant += c.getValue();
    } else {
      rest.push_back(x);
    }
  };
  flatten(e);
  if (constant == 0)
    return std::nullopt;
  std::optional<unsigned> dim;
  for (unsigned i = 0; i < constantOffset.size(); ++i) {
    bool uses =
        llvm::any_of(rest, [&](AffineExpr x) { return x.isFunctionOfDim(i); });
    if (uses && dim)
      return std::nullopt; // a function of two coordinates
    if (uses)
      dim = i;
  }
  if (!dim || constantOffset[*dim] != constant)
    return std::nullopt;
  return constant;
}

CheckResult KernelVerifier::checkViewTag(TagOp op) {
  CheckResult res = newCheck("view-tag", op, op);
  res.predicate = "the tags of a global view agree with each element's global "
                  "coordinate (view offsets + tile coordinate)";
  runCheck({&res}, [&](Query &Q) {
    Operation *view = viewOf(op.getInput());
    if (!view)
      unsupported("the tagged global tile is not a view of a kernel argument");
    Inst in = freshInst(op);
    MemView mv = resolve(op.getInput(), in);
    auto ty = cast<TileType>(op.getInput().getType());
    std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
    if (mv.shared || mv.gather || mv.offsets.size() != shape.size() ||
        mv.perm.size() != shape.size())
      unsupported("the tagged tile is not a view with one offset per "
                  "dimension");
    // The element, its global coordinate g (root order) and g in the tag's
    // coordinate order (root coordinate k is tag coordinate perm[k]).
    std::vector<z3::expr> c = coordVars("c", shape);
    std::vector<z3::expr> g, d(shape.size(), bv(0));
    for (size_t k = 0; k < shape.size(); ++k) {
      z3::expr o = mv.offsets[k], ck = c[mv.perm[k]];
      g.push_back(o + ck);
      d[mv.perm[k]] = g.back();
      z3::expr gk = g.back();
      Q.facts.push_back({in.guard, [o, ck, gk](const z3::model &m) {
                           int64_t want = uval(m, o) + uval(m, ck);
                           if (want == uval(m, gk))
                             return std::string();
                           return "global coordinate " + std::to_string(want) +
                                  " vs solver " + std::to_string(uval(m, gk));
                         }});
    }
    // Symbols provably equal to a view offset (for all instances) become 0:
    // the same term, else a solver query.
    auto provablyEqual = [&](const z3::expr &a, const z3::expr &b) {
      std::optional<z3::model> m;
      z3::check_result r = solve({in.guard, a != b}, m);
      if (r == z3::unknown)
        unsupported("solver returned unknown (timeout?) deciding whether a "
                    "tag symbol equals a view offset");
      return r == z3::unsat;
    };
    std::vector<z3::expr> syms, atOrigin;
    std::vector<int> offsetOf;
    for (Value s : op.getSymbols()) {
      z3::expr e = evalIndex(s, in);
      int k = -1;
      for (size_t j = 0; j < mv.offsets.size() && k < 0; ++j)
        if (z3::eq(e.simplify(), mv.offsets[j].simplify()))
          k = static_cast<int>(j);
      for (size_t j = 0; j < mv.offsets.size() && k < 0; ++j)
        if (provablyEqual(e, mv.offsets[j]))
          k = static_cast<int>(j);
      syms.push_back(e);
      offsetOf.push_back(k);
      atOrigin.push_back(k >= 0 ? bv(0) : e);
      if (k >= 0) {
        z3::expr o = mv.offsets[k];
        Q.facts.push_back({in.guard, [e, o](const z3::model &m) {
                             if (uval(m, e) == uval(m, o))
                               return std::string();
                             return std::string("a tag symbol proved equal to "
                                                "a view offset differs");
                           }});
      }
    }
    // Constant view offsets, by tag coordinate: a constant in the map that
    // equals one is that offset folded in (a Python int slab index in both
    // the view and the tag lambda), as a symbol equal to it is.
    std::vector<std::optional<int64_t>> constantOffset(shape.size());
    for (size_t k = 0; k < shape.size(); ++k) {
      z3::expr o = mv.offsets[k].simplify();
      if (o.is_numeral())
        constantOffset[mv.perm[k]] = o.get_numeral_int64();
    }
    Tags actual = applyTagOp(op, c, in);
    AffineMap map = op.getMap();
    auto fields = op.getFields();
    std::vector<std::pair<std::string, z3::expr>> expected;
    z3::expr differs = ctx.bool_val(false);
    for (unsigned j = 0; j < map.getNumResults(); ++j) {
      std::string f = cast<StringAttr>(fields[j]).getValue().str();
      AffineExpr ae = map.getResult(j);
      z3::expr e = evalAffineReplayed(ae, d, atOrigin, in.guard,
                                      "tag map at the global coordinate");
      expected.push_back({f, e});
      z3::expr wrong = actual.at(f) != e;
      if (std::optional<int64_t> folded = foldedOffset(ae, constantOffset))
        wrong = wrong && actual.at(f) != e - bv(*folded);
      differs = differs || wrong;
    }
    std::optional<z3::model> m = findWitness(res, {in.guard, differs}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    ElementInfo el;
    el.role = "tag";
    el.memory = mv.name;
    for (auto &x : c)
      el.tileCoords.push_back(uval(*m, x));
    for (auto &x : g)
      el.globalCoords.push_back(uval(*m, x));
    ElementInfo want = el;
    want.role = "expected";
    for (auto &[f, e] : expected) {
      el.tags[f] = sval(*m, actual.at(f));
      want.tags[f] = sval(*m, e);
    }
    cx.elements = {el, want};
    for (auto &[f, e] : expected)
      if (el.tags[f] != want.tags[f])
        cx.notes.push_back("field '" + f + "' of " + mv.name + " element " +
                           listStr(el.tileCoords) + " at global " +
                           listStr(el.globalCoords) + " is " +
                           std::to_string(el.tags[f]) +
                           " but the tag map at the global coordinate gives " +
                           std::to_string(want.tags[f]));
    std::vector<int64_t> offs, symv, dv;
    for (auto &x : mv.offsets)
      offs.push_back(uval(*m, x));
    for (auto &x : d)
      dv.push_back(uval(*m, x));
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "expected = the tag map at d = " << listStr(dv) << " with symbols (";
    for (size_t i = 0; i < syms.size(); ++i) {
      os << (i ? ", " : "") << "s" << i << " = ";
      if (offsetOf[i] >= 0)
        os << "0 (equals view offset " << offsetOf[i] << ")";
      else
        os << sval(*m, syms[i]);
    }
    os << ")";
    cx.notes.push_back(s);
    for (auto &x : syms)
      symv.push_back(sval(*m, x));
    cx.notes.push_back("view " + opDesc(view) + " has offsets " +
                       listStr(offs) + "; tag " + opDesc(op) + " has symbols " +
                       listStr(symv));
    res.counterexamples.push_back(cx);
    res.status = Status::Violated;
  });
  return res;
}

} // namespace argus::verify::detail
