//===- AssertCheck.cpp - deciding argus.tag_assert ------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The elements an assertion relates are paired by logical coordinate (for
// argus.mma: a[m,k], b[k,n], acc[m,n]); the query asks for a thread, slot,
// element and iteration where the predicate is false on their tags. A
// predicate over a reduced dimension is violated only when it fails for
// every reduced element.
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"
#include "PredicateEvaluator.h"

#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TagPredicate.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

CheckResult KernelVerifier::checkAssert(TagAssertOp op) {
  Operation *site = op.getSite();
  CheckResult res = newCheck("assert", op.getOperation(), site);
  res.predicate = op.getPredicate().str();
  res.assertLocation = locStr(op.getLoc());
  runCheck({&res}, [&](Query &Q) {
    if (!site)
      unsupported("the assertion has no site op");
    std::string err;
    std::unique_ptr<TagExpr> pred = parseTagPredicate(op.getPredicate(), err);
    if (!pred)
      unsupported("predicate does not parse: " + err);
    Inst in = freshInst(site);
    std::map<std::string, Value> named;
    for (auto &[n, v] : getNamedTagOperands(site))
      named[n.str()] = v;
    if (site->getNumResults() == 1)
      named["result"] = site->getResult(0);
    SmallVector<const TagExpr *> refs;
    pred->collectRefs(refs);
    std::set<std::string> used;
    for (auto *r : refs)
      used.insert(r->operand);

    // Pairing of elements by logical coordinate.
    std::map<std::string, std::vector<z3::expr>> coords;
    std::string primary;
    if (isa<MmaOp, MmaAsyncOp>(site)) {
      auto accTy = cast<TileType>(site->getOperand(2).getType());
      auto aTy = cast<TileType>(site->getOperand(0).getType());
      z3::expr m = rangeVar("m", accTy.getShape()[0]);
      z3::expr n = rangeVar("n", accTy.getShape()[1]);
      z3::expr k = rangeVar("k", aTy.getShape()[1]);
      coords["a"] = {m, k};
      coords["b"] = {k, n};
      coords["acc"] = {m, n};
      coords["result"] = {m, n};
      primary = aTy.isMemory() ? "acc" : "a";
    } else {
      Value shapeVal;
      if (site->getNumResults() == 1 &&
          isa<TileType>(site->getResult(0).getType()))
        shapeVal = site->getResult(0);
      else if (auto st = dyn_cast<StoreOp>(site))
        shapeVal = st.getValue();
      else if (isa<CopyOp, CopyAsyncOp, TmaStoreOp>(site))
        shapeVal = site->getOperand(0);
      if (!shapeVal)
        unsupported("assertion site " + opDesc(site) + " is not modelled");
      auto ty = cast<TileType>(shapeVal.getType());
      std::vector<z3::expr> c = coordVars("c", ty.getShape());
      for (auto &[n, v] : named)
        coords[n] = c;
      if (auto r = dyn_cast<ReduceOp>(site)) {
        auto inTy = cast<TileType>(r.getInput().getType());
        std::vector<z3::expr> ci = c;
        z3::expr red = rangeVar("reduced", inTy.getShape()[r.getDim()]);
        Q.reductionVars.push_back(red);
        ci.insert(ci.begin() + r.getDim(), red);
        coords["input"] = ci;
      } else if (auto sc = dyn_cast<ScanOp>(site)) {
        std::vector<z3::expr> ci = c;
        z3::expr sv = rangeVar("scanned", ty.getShape()[sc.getDim()]);
        Q.cons.push_back(z3::ule(sv, c[sc.getDim()]));
        Q.reductionVars.push_back(sv);
        ci[sc.getDim()] = sv;
        coords["input"] = ci;
      } else if (auto b = dyn_cast<BroadcastOp>(site)) {
        std::vector<z3::expr> ci = c;
        ci.erase(ci.begin() + b.getDim());
        coords["input"] = ci;
      }
      if (isa<StoreOp>(site))
        primary = "value";
      else if (isa<CopyOp, CopyAsyncOp, TmaStoreOp>(site))
        primary = "";
      else if (!ty.isMemory() && named.count("result"))
        primary = "result";
    }
    // The thread holding the primary element.
    std::optional<z3::expr> ht, hs;
    std::optional<L::Layout> hl;
    std::vector<int64_t> hshape;
    if (!primary.empty() && named.count(primary)) {
      auto ty = cast<TileType>(named[primary].getType());
      if (!ty.isMemory()) {
        hl = registerLayout(ty);
        ht = rangeVar("thread", hl->mode(0).size());
        hs = rangeVar("slot", hl->mode(1).size());
        hshape.assign(ty.getShape().begin(), ty.getShape().end());
        Q.cons.push_back(tvLin(*hl, *ht, *hs, ctx.bool_val(true)) ==
                         lin(coords[primary], hshape));
      }
    } else if (isa<CopyOp, CopyAsyncOp, TmaStoreOp>(site)) {
      L::Layout l = *accessLayout(site);
      auto ty = cast<TileType>(site->getOperand(0).getType());
      hl = l;
      ht = rangeVar("thread", l.mode(0).size());
      hs = rangeVar("slot", l.mode(1).size());
      hshape.assign(ty.getShape().begin(), ty.getShape().end());
      Q.cons.push_back(tvLin(l, *ht, *hs, ctx.bool_val(true)) ==
                       lin(coords["source"], hshape));
    }

    std::map<std::string, Tags> tags;
    for (const std::string &n : used) {
      auto it = named.find(n);
      if (it == named.end())
        unsupported("operand '" + n + "' is not an operand of " + opDesc(site));
      if (!coords.count(n))
        unsupported("no element pairing for operand '" + n + "'");
      tags[n] = operandTags(it->second, coords[n], in, site);
      // An integer tile's own value, when the coordinates determine it.
      if (!tags[n].count("value"))
        if (auto v = tileValue(it->second, coords[n], in))
          tags[n].insert_or_assign("value", *v);
    }
    PredicateEvaluator pe{ctx, &tags};
    z3::expr P = pe.eval(*pred);
    z3::expr defined = ctx.bool_val(true), ok = ctx.bool_val(true),
             anyCut = ctx.bool_val(false);
    for (auto &r : Q.reads) {
      defined = defined && r.defined;
      ok = ok && (r.defined || r.cut);
      anyCut = anyCut || r.cut;
    }
    // Usually the assertion holds and no read goes past the followed
    // depth: one query proves it.
    {
      std::optional<z3::model> m;
      if (solve({(defined && !P) || (ok && anyCut)}, m) == z3::unsat) {
        res.status = Status::Proved;
        return;
      }
    }
    // Counterexamples after the first differ in (thread, element,
    // iteration), and in the thread where another thread violates too.
    std::vector<z3::expr> block, otherThread;
    for (unsigned ce = 0; ce < std::max(1u, opts.maxCounterexamples); ++ce) {
      std::optional<z3::model> m;
      std::vector<z3::expr> extra{defined, !P};
      extra.insert(extra.end(), block.begin(), block.end());
      z3::check_result r = z3::unsat;
      if (!otherThread.empty()) {
        std::vector<z3::expr> distinct = extra;
        distinct.insert(distinct.end(), otherThread.begin(), otherThread.end());
        r = solve(distinct, m);
        if (r == z3::sat)
          extra = distinct;
      }
      if (r != z3::sat)
        r = solve(extra, m);
      if (r == z3::unknown) {
        if (res.counterexamples.empty()) {
          res.status = Status::Unknown;
          res.reason = "solver returned unknown (timeout " +
                       std::to_string(opts.timeoutMs) + " ms?)";
        }
        break;
      }
      if (r == z3::unsat)
        break;
      preferSmall(extra, in, m);
      // Concrete replay.
      std::string bad = replay(*m);
      std::map<std::string, std::map<std::string, int64_t>> cv;
      for (auto &[n, t] : tags)
        for (auto &[f, e] : t)
          cv[n][f] = sval(*m, e);
      auto pv = PredicateEvaluator::concrete(*pred, cv);
      if (bad.empty() && (!pv || *pv != 0))
        bad = "the predicate evaluates to true on the model's tag values";
      if (replayDisagrees(res, bad)) {
        res.counterexamples.clear();
        break;
      }
      // Reduced dimensions: violated only when no reduced element satisfies
      // the predicate.
      if (!Q.reductionVars.empty()) {
        std::vector<z3::expr> fix{defined, P};
        for (auto &[nm, cs] : coords)
          for (auto &x : cs) {
            bool isRed = false;
            for (auto &rv : Q.reductionVars)
              isRed |= z3::eq(rv, x);
            if (!isRed)
              fix.push_back(x == m->eval(x, true));
          }
        for (auto &[name, e] : paramVars)
          fix.push_back(e == m->eval(e, true));
        for (auto &[l, iv] : in.ivs)
          fix.push_back(iv == m->eval(iv, true));
        std::optional<z3::model> m2;
        if (solve(fix, m2) != z3::unsat) {
          res.status = Status::Unknown;
          res.reason = "the assertion depends on a reduced dimension: it "
                       "holds for some reduced elements and not others";
          res.counterexamples.clear();
          break;
        }
      }
      Counterexample cx;
      fillCommon(cx, *m, in);
      if (ht)
        setThread(cx, uval(*m, *ht), uval(*m, *hs));
      for (auto &[n, t] : tags) {
        ElementInfo el;
        el.role = n;
        Value v = named[n];
        auto ty = cast<TileType>(v.getType());
        for (auto &x : coords[n])
          el.tileCoords.push_back(uval(*m, x));
        for (auto &[f, e] : t)
          el.tags[f] = sval(*m, e);
        if (ty.isMemory()) {
          MemView mv = resolve(v, in);
          el.memory = mv.name;
          el.globalCoords = globalCoords(mv, *m, el.tileCoords);
        } else {
          // Invert the register layout concretely.
          L::Layout l = registerLayout(ty);
          std::vector<int64_t> sh(ty.getShape().begin(), ty.getShape().end());
          if (n == primary && ht) {
            el.thread = cx.thread;
            el.slot = cx.slot;
          } else if (auto h = holderOf(l, linConcrete(el.tileCoords, sh))) {
            el.thread = h->first;
            el.slot = h->second;
          }
          Value src = v;
          while (Operation *d = src.getDefiningOp()) {
            if (isa<TagOp, ConvertOp, ConvertLayoutOp>(d)) {
              src = d->getOperand(0);
              continue;
            }
            break;
          }
          if (auto ld = src.getDefiningOp<LoadOp>()) {
            MemView mv = resolve(ld.getSource(), in);
            el.memory = mv.name;
            el.globalCoords = globalCoords(mv, *m, el.tileCoords);
          }
        }
        cx.elements.push_back(el);
      }
      readNotes(cx, *m);
      res.counterexamples.push_back(cx);
      res.status = Status::Violated;
      // Block this (thread, element, iteration) for the next one.
      z3::expr same = ctx.bool_val(true);
      for (auto &[nm, cs] : coords)
        for (auto &x : cs)
          same = same && x == m->eval(x, true);
      for (auto &[l, iv] : in.ivs)
        same = same && iv == m->eval(iv, true);
      if (ht) {
        same = same && *ht == m->eval(*ht, true);
        otherThread.push_back(*ht != m->eval(*ht, true));
      }
      block.push_back(!same);
    }
    if (res.counterexamples.empty() && res.reason.empty()) {
      std::optional<z3::model> m;
      z3::check_result r = solve({ok, anyCut}, m);
      if (r == z3::sat) {
        res.status = Status::Unknown;
        res.reason = "a read may see a writer older than the pipeline depth "
                     "the verifier follows";
      } else if (r == z3::unknown) {
        res.status = Status::Unknown;
        res.reason = "solver returned unknown (timeout?)";
      } else {
        res.status = Status::Proved;
      }
    }
  });
  return res;
}

} // namespace argus::verify::detail
