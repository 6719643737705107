//===- LoopInvariants.cpp - tags carried through scf.for iter_args --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The tag fields of an iter_arg are those of its init value that every
// iteration yields unchanged: the largest inductive subset, found by
// shrinking from all the init value's fields (Houdini: a query per round of
// model-guided pruning). Nested loops are re-analysed under each hypothesis.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"

#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

const std::vector<std::set<std::string>> &
KernelVerifier::invariantFields(scf::ForOp loop) {
  Operation *key = loop.getOperation();
  auto it = invariant.find(key);
  if (it != invariant.end())
    return it->second;
  unsigned nArgs = loop.getInitArgs().size();
  // Pessimistic placeholder while this loop is being analysed.
  invariant[key] = std::vector<std::set<std::string>>(nArgs);
  std::vector<std::set<std::string>> hyp(nArgs);
  Query *saved = q;
  auto restore = [&] { q = saved; };
  // Results for loops nested in this one depend on its hypothesis.
  auto forgetNested = [&] {
    for (auto it = invariant.begin(); it != invariant.end();)
      it = key->isProperAncestor(it->first) ? invariant.erase(it)
                                            : std::next(it);
  };
  try {
    // Start from every field of every init value.
    {
      Query Q;
      q = &Q;
      baseCons(Q);
      Inst in = freshInst(loop.getBody()->getTerminator());
      for (unsigned i = 0; i < nArgs; ++i) {
        auto ty = dyn_cast<TileType>(loop.getInitArgs()[i].getType());
        if (!ty || ty.isMemory())
          continue;
        std::vector<z3::expr> c = coordVars("c", ty.getShape());
        for (auto &[k, e] : regTags(loop.getInitArgs()[i], c, in.without(loop)))
          hyp[i].insert(k);
      }
    }
    // Shrink to an inductive set.
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      // Nested results depend on the hypothesis of the previous round.
      forgetNested();
      hypothesis[key] = &hyp;
      std::vector<std::set<std::string>> next(nArgs);
      for (unsigned i = 0; i < nArgs; ++i) {
        if (hyp[i].empty())
          continue;
        auto ty = cast<TileType>(loop.getInitArgs()[i].getType());
        Query Q;
        q = &Q;
        baseCons(Q);
        Inst in = freshInst(loop.getBody()->getTerminator());
        std::vector<z3::expr> c = coordVars("c", ty.getShape());
        Tags init, y;
        try {
          init = regTags(loop.getInitArgs()[i], c, in.without(loop));
          y = regTags(loop.getYieldedValues()[i], c, in);
        } catch (Unsupported &) {
          continue; // nothing provable for this value
        }
        z3::expr ok = ctx.bool_val(true), anyCut = ctx.bool_val(false);
        for (auto &r : Q.reads) {
          ok = ok && (r.defined || r.cut);
          anyCut = anyCut || r.cut;
        }
        // Houdini with models: ask whether any remaining field may change;
        // a model drops every field it changes (each alone would be sat on
        // it), an unsat answer keeps the rest (each alone is unsat too). So
        // the result is the per-field one in a query or two, not one per
        // field. A model where a read goes past the followed depth drops all
        // (each field's own query would be sat on it).
        std::set<std::string> keep;
        for (const std::string &f : hyp[i])
          if (y.count(f) && init.count(f))
            keep.insert(f);
        while (!keep.empty()) {
          z3::expr anyChanged = ctx.bool_val(false);
          for (const std::string &f : keep)
            anyChanged = anyChanged || y.at(f) != init.at(f);
          std::optional<z3::model> m;
          z3::check_result r = z3::unknown;
          {
            // The greatest inductive subset, whichever models drop fields.
            llvm::SaveAndRestore<bool> any(anyModel, true);
            r = solve({ok, anyCut || anyChanged}, m);
          }
          if (r == z3::unsat)
            break;
          if (r == z3::unknown || m->eval(anyCut, true).is_true()) {
            keep.clear();
            break;
          }
          size_t before = keep.size();
          for (auto it = keep.begin(); it != keep.end();)
            it = m->eval(y.at(*it) != init.at(*it), true).is_true()
                     ? keep.erase(it)
                     : std::next(it);
          if (keep.size() == before) // a model that changes none: give up
            keep.clear();
        }
        next[i] = keep;
      }
      hypothesis.erase(key);
      for (unsigned i = 0; i < nArgs; ++i)
        if (next[i] != hyp[i])
          changed = true;
      hyp = next;
      if (!changed)
        break;
      if (round == 7)
        hyp.assign(nArgs, {});
    }
  } catch (Unsupported &) {
    hyp.assign(nArgs, {});
  } catch (std::exception &) { // z3::exception included
    hyp.assign(nArgs, {});
  }
  hypothesis.erase(key);
  restore();
  // Results for nested loops were derived under this loop's induction
  // hypothesis: forget them (they are recomputed when needed elsewhere).
  forgetNested();
  invariant[key] = hyp;
  return invariant[key];
}

} // namespace argus::verify::detail
