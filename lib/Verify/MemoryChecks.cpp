//===- MemoryChecks.cpp - the implicit shared-memory checks ---------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Checks made without being asked: every shared-memory read sees a write
// (unwritten-read) ordered before it (unsynchronized-read); no write op has
// two (thread, slot) pairs hitting one address (non-injective-write); no
// write overwrites an element another thread read before it without a
// barrier in between (unsynchronized-write); no two writes of one element
// race (write-after-write); every stage index is in range
// (stage-out-of-range).
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/ReplicaUniformity.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Layout/Replication.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

void KernelVerifier::checkRead(Operation *reader, Value source,
                               std::vector<CheckResult> &out) {
  // Stages bulk copies fill: ordered by the mbarrier protocol (its checks
  // stand for unsynchronized-read); whether a copy fills each slot read:
  if (isSharedTile(source) && filledByBulkCopies(source)) {
    out.push_back(checkBulkWritten(reader, source));
    return;
  }
  CheckResult unw = newCheck("unwritten-read", reader, reader);
  CheckResult uns = newCheck("unsynchronized-read", reader, reader);
  unw.predicate = "every element read from shared memory was written before";
  uns.predicate = "every shared-memory read is ordered after its writer "
                  "(wait_group for async copies, barrier across threads)";
  if (readsThroughAsyncProxy(reader))
    uns.predicate += "; this op reads through the async proxy, so each "
                     "writer must also run fence.proxy.async after its "
                     "write and before that barrier";
  bool notShared = false;
  runCheck({&unw, &uns}, [&](Query &Q) {
    Inst in = freshInst(reader);
    auto sty = cast<TileType>(source.getType());
    std::vector<int64_t> shape(sty.getShape().begin(), sty.getShape().end());
    std::optional<z3::expr> t, s;
    std::vector<z3::expr> c;
    std::optional<L::Layout> l = accessLayout(reader);
    if (l) {
      t = rangeVar("thread", l->mode(0).size());
      s = rangeVar("slot", l->mode(1).size());
      c = delin(tvLin(*l, *t, *s, ctx.bool_val(true)), shape);
    } else {
      c = coordVars("c", shape);
      t = rangeVar("thread", threads);
    }
    MemView mv = resolve(source, in);
    if (!mv.direct.empty() || !mv.shared) {
      notShared = true;
      return;
    }
    readShared(mv, c, in, reader, t, false);
    ReadRec &rr = Q.reads.back();
    // A convincing witness of an unsynchronised read: writer and reader in
    // different warps.
    z3::expr otherWarp = ctx.bool_val(false);
    for (auto &c : rr.cands)
      if (c.wt)
        otherWarp = otherWarp || (c.sel && z3::udiv(*c.wt, bv(warpSize)) !=
                                               z3::udiv(*t, bv(warpSize)));
    auto finish = [&](CheckResult &res, z3::expr cond, const char *what) {
      std::optional<z3::model> m;
      z3::check_result r = z3::unknown;
      if (&res == &uns && solve({cond, otherWarp}, m) == z3::sat) {
        cond = cond && otherWarp;
        r = z3::sat;
      } else
        r = solve({cond}, m);
      if (r == z3::unknown) {
        res.status = Status::Unknown;
        res.reason = "solver returned unknown (timeout?)";
        return;
      }
      if (r == z3::unsat) {
        res.status = Status::Proved;
        return;
      }
      preferSmall({cond}, in, m);
      std::string bad = replay(*m);
      if (replayDisagrees(res, bad))
        return;
      Counterexample cx;
      fillCommon(cx, *m, in);
      setThread(cx, uval(*m, *t), s ? uval(*m, *s) : -1);
      cx.elements.push_back(accessedElement(cx, "source", mv.name, c, *m));
      std::string note;
      llvm::raw_string_ostream os(note);
      os << what << ": " << mv.name << "[stage " << uval(*m, rr.stage)
         << ", offset " << uval(*m, rr.addr) << "]";
      cx.notes.push_back(note);
      readNotes(cx, *m);
      res.counterexamples.push_back(cx);
      res.status = Status::Violated;
    };
    z3::expr cutPossible = rr.cut;
    z3::expr unwritten = !rr.defined && !rr.cut;
    z3::expr unsynced = rr.defined && rr.unsync;
    // Usually everything holds: one query proves both checks and that no
    // read goes past the followed depth.
    std::optional<z3::model> both;
    if (solve({unwritten || unsynced || cutPossible}, both) == z3::unsat) {
      unw.status = uns.status = Status::Proved;
      return;
    }
    if (solve({unwritten || unsynced}, both) == z3::unsat) {
      unw.status = uns.status = Status::Proved;
    } else {
      finish(unw, unwritten, "no write reaches this address");
      finish(uns, unsynced,
             "the latest writer is not synchronised with this read");
    }
    if (unw.status == Status::Proved || uns.status == Status::Proved) {
      std::optional<z3::model> m;
      if (solve({cutPossible}, m) != z3::unsat)
        for (CheckResult *r : {&unw, &uns})
          if (r->status == Status::Proved) {
            r->status = Status::Unknown;
            r->reason = "a read may see a writer older than the pipeline "
                        "depth the verifier follows";
          }
    }
  });
  if (notShared)
    return; // a tagged or global source: nothing to check
  out.push_back(unw);
  out.push_back(uns);
}

CheckResult KernelVerifier::checkInjective(Operation *w) {
  CheckResult res = newCheck("non-injective-write", w, w);
  res.predicate = "no two (thread, slot) pairs of one write write the same "
                  "address";
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(w);
    Value dest = writeDest(w);
    auto dty = cast<TileType>(dest.getType());
    std::vector<int64_t> shape(dty.getShape().begin(), dty.getShape().end());
    L::Layout l = *accessLayout(w);
    z3::expr t1 = rangeVar("thread", l.mode(0).size());
    z3::expr s1 = rangeVar("slot", l.mode(1).size());
    z3::expr t2 = rangeVar("thread2", l.mode(0).size());
    z3::expr s2 = rangeVar("slot2", l.mode(1).size());
    auto c1 = delin(tvLin(l, t1, s1, ctx.bool_val(true)), shape);
    auto c2 = delin(tvLin(l, t2, s2, ctx.bool_val(true)), shape);
    // Global destinations: the view offsets are the same for both writers,
    // so only the coordinates matter (no need to model the offsets).
    MemView mv;
    if (isSharedTile(dest))
      mv = resolve(dest, in);
    else {
      mv.name = "global";
      if (auto v = dest.getDefiningOp())
        for (Operation *d = v; d; d = d->getOperand(0).getDefiningOp()) {
          if (auto vw = dyn_cast<ViewOp>(d)) {
            mv.name = vw.getName().str();
            break;
          }
          if (auto g = dyn_cast<GatherViewOp>(d)) {
            mv.name = g.getName().str();
            break;
          }
          if (!isa<TagOp, TransposeOp, ReinterpretOp>(d))
            break;
        }
    }
    z3::expr same = ctx.bool_val(true);
    L::SwizzledLayout ml = mv.layout;
    if (mv.shared)
      same = memOffset(ml, shape, c1, ctx.bool_val(true)) ==
             memOffset(ml, shape, c2, ctx.bool_val(true));
    else
      for (size_t k = 0; k < c1.size(); ++k)
        same = same && c1[k] == c2[k];
    // A replicated register tile with equal replicas stores each global
    // element from its first holder only (as lowered).
    z3::expr writers = ctx.bool_val(true);
    auto store = dyn_cast<StoreOp>(w);
    std::optional<std::vector<int64_t>> masks;
    if (!mv.shared && store && L::isReplicated(l) &&
        isReplicaUniform(store.getValue())) {
      masks = L::firstHolderMasks(l);
      if (!masks)
        unsupported("the register layout holds an element in two slots of "
                    "one thread (the lowering rejects the store)");
      for (size_t v = 0; v < masks->size(); ++v)
        if ((*masks)[v])
          writers = writers &&
                    z3::implies(s1 == bv(v), (t1 & bv((*masks)[v])) == bv(0)) &&
                    z3::implies(s2 == bv(v), (t2 & bv((*masks)[v])) == bv(0));
    }
    // The addresses depend on the layouts alone (constants): the writers'
    // addresses, enumerated, decide it when none repeats; the solver is
    // asked only for a collision's witness.
    auto noConcreteCollision = [&]() {
      int64_t s0 = l.mode(0).size(), slots = l.mode(1).size();
      int64_t n = product(shape);
      if (l.rank() != 2 || n <= 0 || s0 * slots > (int64_t(1) << 22))
        return false;
      std::vector<int64_t> addrs;
      addrs.reserve(s0 * slots);
      for (int64_t sl = 0; sl < slots; ++sl)
        for (int64_t t = 0; t < s0; ++t) {
          if (masks && sl < static_cast<int64_t>(masks->size()) &&
              (t & (*masks)[sl]))
            continue; // not the element's first holder: does not store
          int64_t c = ((l(t + s0 * sl) % n) + n) % n;
          addrs.push_back(mv.shared ? ml(c) : c);
        }
      llvm::sort(addrs);
      return std::adjacent_find(addrs.begin(), addrs.end()) == addrs.end();
    };
    std::optional<z3::model> m;
    z3::check_result r = noConcreteCollision()
                             ? z3::unsat
                             : solve({same, writers, t1 != t2 || s1 != s2}, m);
    if (r == z3::unsat) {
      res.status = Status::Proved;
      // Distinct rows of a gathered store are distinct tensor rows only
      // when its indices are declared distinct.
      auto g = dyn_cast_or_null<GatherViewOp>(
          isGlobalTile(dest) ? globalViewOf(dest) : nullptr);
      std::optional<GatherSource> src;
      if (g && !((src = gatherSource(g)) && src->distinct())) {
        res.status = Status::Unknown;
        res.reason = "distinct rows of the tile are rows of '" +
                     g.getName().str() + "' named by " + gatherRowsOrigin(src) +
                     ", which may repeat; declare them distinct with "
                     "`argus.assume_indices %tensor below %rows distinct` "
                     "(the launcher checks it)";
      }
    } else if (r == z3::unknown) {
      res.status = Status::Unknown;
      res.reason = "solver returned unknown (timeout?)";
    } else {
      // Concrete replay with the layout library.
      int64_t a1 = uval(*m, t1), b1 = uval(*m, s1), a2 = uval(*m, t2),
              b2 = uval(*m, s2);
      int64_t s0 = l.mode(0).size();
      int64_t l1 = l(a1 + s0 * b1), l2 = l(a2 + s0 * b2);
      bool collide = mv.shared ? ml(l1) == ml(l2) : l1 == l2;
      std::string bad = replay(*m);
      if (!collide || !bad.empty()) {
        res.status = Status::Unknown;
        res.reason = "counterexample replay disagrees" +
                     (bad.empty() ? std::string() : ": " + bad);
      } else {
        res.status = Status::Violated;
        Counterexample cx;
        fillCommon(cx, *m, in);
        setThread(cx, a1, b1);
        for (int i = 0; i < 2; ++i) {
          ElementInfo el;
          el.role = i == 0 ? "dest" : "dest (second writer)";
          el.memory = mv.name;
          el.tileCoords = delinConcrete(i == 0 ? l1 : l2, shape);
          el.thread = i == 0 ? a1 : a2;
          el.slot = i == 0 ? b1 : b2;
          cx.elements.push_back(el);
        }
        std::string note;
        llvm::raw_string_ostream os(note);
        os << "thread " << a1 << " slot " << b1 << " and thread " << a2
           << " slot " << b2 << " both write " << mv.name;
        if (mv.shared)
          os << " offset " << ml(l1) << " (stage-relative)";
        cx.notes.push_back(note);
        res.counterexamples.push_back(cx);
      }
    }
  });
  return res;
}

/// Whether the accesses of a cut-off candidate (iterations older than the
/// followed depth) are ordered before the access being checked: a barrier
/// after them and, when older writes may be asynchronous copies, a
/// wait_group N retiring them before that barrier. Their groups are closed
/// at the latest by the first commit after them, so a wait_group N with at
/// least N + 1 commits before it (after the cut-off) retires them.
static z3::expr cutoffOrdered(z3::context &ctx, const Candidate &cd,
                              mlir::Value root, AccessKind kind,
                              bool needBarrier = true) {
  // Older asynchronous accesses end when their group retires: cp.async
  // writes, or wgmma and bulk-store reads of shared memory.
  std::optional<AsyncGroup> group;
  bool mixed = false;
  cd.op->walk([&](Operation *p) {
    bool access =
        kind == AccessKind::Writes
            ? isa<CopyAsyncOp>(p) && getMemoryRoot(writeDest(p)) == root
            : readsThroughAsyncProxy(p) && readsRoot(p, root);
    std::optional<AsyncGroup> g = access ? asyncGroupOf(p) : std::nullopt;
    if (!g)
      return;
    mixed |= group && group->commit != g->commit;
    group = g;
  });
  if (mixed)
    return ctx.bool_val(false); // two kinds of groups: not followed
  // Without a thread, only block-wide barriers order older top-level
  // accesses before an access in a role.
  bool blockWide = cd.accessRole.has_value();
  if (!group)
    return anyBarrier(ctx, cd.events, 0, blockWide);
  auto [commitKind, waitKind, selfCommits] = *group;
  // A group older than the cut-off closed before the commits counted here
  // (a bulk store closes its own group, so one commit fewer is needed).
  int64_t extra = selfCommits ? 0 : 1;
  z3::expr ok = ctx.bool_val(false);
  z3::expr commits = ctx.bv_val(0, kWidth);
  for (size_t j = 0; j < cd.events.size(); ++j) {
    const SyncEvent &e = cd.events[j];
    if (e.kind == commitKind)
      commits = commits +
                z3::ite(e.guard, ctx.bv_val(1, kWidth), ctx.bv_val(0, kWidth));
    else if (e.kind == waitKind)
      ok = ok ||
           (e.guard && z3::uge(commits, ctx.bv_val(e.n + extra, kWidth)) &&
            (!needBarrier || anyBarrier(ctx, cd.events, j + 1, blockWide)));
  }
  return ok;
}

CheckResult KernelVerifier::checkWar(Operation *w) {
  return checkPriorAccesses(w, AccessKind::Reads);
}

CheckResult KernelVerifier::checkWaw(Operation *w) {
  return checkPriorAccesses(w, AccessKind::Writes);
}

CheckResult KernelVerifier::checkPriorAccesses(Operation *w, AccessKind kind) {
  bool war = kind == AccessKind::Reads;
  CheckResult res =
      newCheck(war ? "unsynchronized-write" : "write-after-write", w, w);
  res.predicate =
      war ? "no thread overwrites a shared element another thread read "
            "before it without a barrier in between (write after read)"
          : "no two writes of one shared element race: an earlier write by "
            "another thread (or an asynchronous copy not yet retired) is "
            "ordered before this one by a wait_group and a barrier";
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(w);
    Value dest = writeDest(w);
    MemView wv = resolve(dest, in);
    L::Layout l = *accessLayout(w);
    z3::expr tw = rangeVar("thread", l.mode(0).size());
    z3::expr sw = rangeVar("slot", l.mode(1).size());
    std::vector<z3::expr> cw =
        delin(tvLin(l, tw, sw, ctx.bool_val(true)), wv.shape);
    z3::expr addr =
        *wv.base + memOffset(wv.layout, wv.shape, cw, ctx.bool_val(true));
    std::vector<Candidate> cands;
    std::vector<SyncEvent> evRev;
    walkBefore(w, in, wv.root, kind, cands, evRev);
    bool wholeStage = wv.shared && checkFullStage(w).empty();
    z3::expr viol = ctx.bool_val(false), cut = ctx.bool_val(false);
    struct Hit {
      z3::expr cond;
      Operation *op;
      z3::expr t;
      std::optional<z3::expr> s;
      std::vector<z3::expr> c;
      Inst inst;
    };
    std::vector<Hit> hits;
    for (Candidate &cd : cands) {
      if (cd.cutoff) {
        cut = cut || (cd.inst.guard && !cutoffOrdered(ctx, cd, wv.root, kind));
        continue;
      }
      std::vector<Value> srcs;
      if (!war)
        srcs.push_back(writeDest(cd.op));
      else if (isa<MmaOp, MmaAsyncOp>(cd.op)) {
        for (Value v : {cd.op->getOperand(0), cd.op->getOperand(1)})
          if (isSharedTile(v) && getMemoryRoot(v) == wv.root)
            srcs.push_back(v);
      } else
        srcs.push_back(cd.op->getOperand(0));
      for (Value src : srcs) {
        MemView rv = resolve(src, cd.inst);
        std::optional<L::Layout> rl = accessLayout(cd.op);
        z3::expr tr = var(war ? "reader_thread" : "earlier_writer_thread");
        std::optional<z3::expr> sr;
        std::vector<z3::expr> cr;
        if (rl) {
          Q.cons.push_back(z3::ult(tr, bv(rl->mode(0).size())));
          sr = rangeVar(war ? "reader_slot" : "earlier_writer_slot",
                        rl->mode(1).size());
          cr = delin(tvLin(*rl, tr, *sr, cd.inst.guard), rv.shape);
        } else {
          Q.cons.push_back(z3::ult(tr, bv(threads)));
          cr = coordVars("reader_coord", rv.shape);
        }
        // The same element: through one bijective stage layout (this
        // write's, checked whole-stage), the same stage and coordinate.
        z3::expr sameElement = ctx.bool_val(true);
        if (wholeStage && sameStageLayout(wv, rv)) {
          sameElement = *rv.base == *wv.base;
          for (size_t k = 0; k < cw.size(); ++k)
            sameElement = sameElement && cr[k] == cw[k];
        } else {
          sameElement =
              *rv.base + memOffset(rv.layout, rv.shape, cr, cd.inst.guard) ==
              addr;
        }
        // Program order orders one thread's own accesses and nothing else;
        // asynchronous reads (wgmma operands, bulk stores) last until their
        // group retires.
        z3::expr unordered =
            war && !readsThroughAsyncProxy(cd.op)
                ? (!sameThread(ctx, cd, tr, tw) && !barrierOrders(ctx, cd, tr))
                : unsynchronised(ctx, cd, tr, tw);
        z3::expr cond = cd.inst.guard && sameElement && unordered;
        viol = viol || cond;
        hits.push_back({cond, cd.op, tr, sr, cr, cd.inst});
      }
    }
    std::optional<z3::model> m;
    // Usually neither a race nor an access past the followed depth: one
    // query.
    if (solve({viol || cut}, m) == z3::unsat) {
      res.status = Status::Proved;
      return;
    }
    z3::check_result r = solve({viol}, m);
    if (r == z3::unknown) {
      res.status = Status::Unknown;
      res.reason = "solver returned unknown (timeout?)";
    } else if (r == z3::unsat) {
      std::optional<z3::model> m2;
      z3::check_result r2 = solve({cut}, m2);
      if (r2 == z3::unsat)
        res.status = Status::Proved;
      else {
        res.status = Status::Unknown;
        res.reason = std::string(war ? "a read" : "a write") +
                     " older than the pipeline depth the verifier follows "
                     "may precede this write without synchronisation";
      }
    } else {
      // A convincing witness: the two threads in different warps (a
      // same-warp pair may be harmless in practice on some targets).
      z3::expr otherWarp = ctx.bool_val(false);
      for (Hit &h : hits)
        otherWarp = otherWarp || (h.cond && z3::udiv(h.t, bv(warpSize)) !=
                                                z3::udiv(tw, bv(warpSize)));
      std::vector<z3::expr> extra{viol};
      std::optional<z3::model> mw;
      if (solve({viol, otherWarp}, mw) == z3::sat) {
        m = mw;
        extra.push_back(otherWarp);
      }
      preferSmall(extra, in, m);
      if (!replayDisagrees(res, replay(*m))) {
        res.status = Status::Violated;
        Counterexample cx;
        fillCommon(cx, *m, in);
        setThread(cx, uval(*m, tw), uval(*m, sw));
        cx.elements.push_back(accessedElement(cx, "dest", wv.name, cw, *m));
        for (Hit &h : hits) {
          if (!m->eval(h.cond, true).is_true())
            continue;
          int64_t t = uval(*m, h.t);
          if (!war) {
            ElementInfo el;
            el.role = "dest (earlier writer)";
            el.memory = wv.name;
            for (auto &x : h.c)
              el.tileCoords.push_back(uval(*m, x));
            el.thread = t;
            el.slot = h.s ? uval(*m, *h.s) : -1;
            cx.elements.push_back(el);
          }
          std::string note;
          llvm::raw_string_ostream os(note);
          os << "thread " << t << " (warp " << t / warpSize << ", lane "
             << t % warpSize << ") " << (war ? "read " : "wrote ") << wv.name
             << "[offset " << uval(*m, addr) << "] at " << opDesc(h.op);
          for (auto &[loop, iv] : h.inst.ivs)
            os << ", " << loopName(loop) << " iteration " << uval(*m, iv);
          if (war && isa<TmaStoreOp>(h.op))
            os << ", a bulk store whose group no tma_store_wait followed by "
                  "a barrier retires before this write";
          else if (war && isa<MmaAsyncOp>(h.op))
            os << ", an asynchronous wgmma whose group no wgmma_wait "
                  "followed by a barrier retires before this write";
          else if (war)
            os << " with no barrier before this write";
          else {
            int64_t me = uval(*m, tw);
            os << "; thread " << me << " (warp " << me / warpSize << ", lane "
               << me % warpSize << ") writes it here with no "
               << (isa<CopyAsyncOp>(h.op) ? "wait_group and barrier"
                                          : "barrier")
               << " in between: either write may land last";
          }
          cx.notes.push_back(note);
          break;
        }
        res.counterexamples.push_back(cx);
      }
    }
  });
  return res;
}

CheckResult KernelVerifier::checkBulkStoreDrained(TmaStoreOp store) {
  CheckResult res = newCheck("tma-store-drained", store, store);
  auto role = store->getParentOfType<RoleOp>();
  std::string scope = role ? "warp role '" + role.getName().str() + "'"
                           : std::string("the kernel");
  res.predicate = "every bulk store has finished reading shared memory "
                  "(argus.tma_store_wait) before " +
                  scope + " ends";
  runCheck({&res}, [&](Query &Q) {
    // Walk back from the end of the scope: the latest instances of the
    // stores reading this source, with the bulk groups and waits after them.
    Operation *top = store;
    while (top->getParentOp() != func.getOperation() &&
           !isa<RoleOp>(top->getParentOp()))
      top = top->getParentOp();
    Inst in = freshInst(top);
    Value root = getMemoryRoot(store.getSource());
    Block &body = role ? role.getBody().front() : func.getBody().front();
    std::vector<Candidate> cands;
    std::vector<SyncEvent> evRev;
    walkBlockBack(body, in, root, AccessKind::Reads, cands, evRev);
    z3::expr issuer = bv(0); // one thread issues and waits
    z3::expr bad = ctx.bool_val(false);
    std::vector<std::pair<z3::expr, const Candidate *>> open;
    for (const Candidate &cd : cands) {
      z3::expr pending = ctx.bool_val(false);
      if (cd.cutoff)
        pending = cd.inst.guard &&
                  !cutoffOrdered(ctx, cd, root, AccessKind::Reads, false);
      else if (isa<TmaStoreOp>(cd.op))
        pending = cd.inst.guard && unsynchronised(ctx, cd, issuer, issuer);
      else
        continue;
      bad = bad || pending;
      open.push_back({pending, &cd});
    }
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    for (auto &[pending, cd] : open) {
      if (!m->eval(pending, true).is_true())
        continue;
      std::string note = opDesc(cd->op) +
                         (cd->cutoff ? " (an older iteration)" : std::string());
      for (auto &[loop, iv] : cd->inst.ivs)
        note += ", " + loopName(loop) + " = " + std::to_string(uval(*m, iv));
      cx.notes.push_back("still reading shared memory when " + scope +
                         " ends: " + note +
                         " (no argus.tma_store_wait retires its bulk group)");
      break;
    }
    res.counterexamples.push_back(cx);
  });
  return res;
}

CheckResult KernelVerifier::checkStageRange(StageOp op) {
  CheckResult res = newCheck("stage-out-of-range", op, op);
  int64_t stages = cast<BufferType>(op.getBuffer().getType()).getStages();
  res.predicate = "the stage index is in [0, " + std::to_string(stages) + ")";
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(op);
    z3::expr idx = evalIndex(op.getIndex(), in);
    std::optional<z3::model> m =
        findWitness(res, {z3::uge(idx, bv(stages))}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    ElementInfo el;
    el.role = "stage";
    el.memory = op.getBuffer().getDefiningOp<AllocOp>()
                    ? op.getBuffer().getDefiningOp<AllocOp>().getName().str()
                    : std::string("buffer");
    el.tileCoords.push_back(uval(*m, idx));
    cx.elements.push_back(el);
    cx.notes.push_back("stage index " + std::to_string(uval(*m, idx)) + " of " +
                       el.memory + ", which has " + std::to_string(stages) +
                       " stages (an index modulo " + std::to_string(stages) +
                       " is probably intended)");
    res.counterexamples.push_back(cx);
  });
  return res;
}

void KernelVerifier::checkStageRanges() {
  func.walk([&](StageOp st) {
    CheckResult res = checkStageRange(st);
    if (res.status == Status::Violated) {
      Operation *buffer = st.getBuffer().getDefiningOp();
      if (buffer)
        brokenBuffers.emplace(buffer, st.getOperation());
    }
    stageRange.emplace(st.getOperation(), std::move(res));
  });
}

void KernelVerifier::adoptStageRanges(const KernelVerifier &from) {
  stageRange = from.stageRange;
  brokenBuffers = from.brokenBuffers;
}

std::optional<std::pair<Operation *, Operation *>>
KernelVerifier::brokenBufferUsed(Operation *site) {
  if (brokenBuffers.empty() || !site)
    return std::nullopt;
  llvm::SmallPtrSet<Operation *, 32> seenOps;
  llvm::DenseSet<Value> seenValues;
  llvm::SmallVector<Operation *> ops{site};
  llvm::SmallVector<Value> values;
  // What `v` is computed from: its defining op's operands, or for a value
  // of a loop, the loop's bounds (induction variable) or its initial and
  // yielded values (carried values and results); other block arguments
  // and results of region ops through their parent op and terminators.
  auto visitValue = [&](Value v) {
    if (!seenValues.insert(v).second)
      return;
    auto result = dyn_cast<OpResult>(v);
    Operation *owner = result
                           ? result.getOwner()
                           : cast<BlockArgument>(v).getOwner()->getParentOp();
    if (!owner)
      return;
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      int64_t k = -1;
      if (result)
        k = result.getResultNumber();
      else if (cast<BlockArgument>(v).getArgNumber() > 0)
        k = cast<BlockArgument>(v).getArgNumber() - 1;
      if (k < 0) {
        values.append(
            {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
        return;
      }
      values.push_back(loop.getInitArgs()[k]);
      values.push_back(loop.getYieldedValues()[k]);
      return;
    }
    ops.push_back(owner);
    if (!result)
      return;
    for (Region &r : owner->getRegions())
      for (Block &b : r)
        if (!b.empty() && b.back().hasTrait<OpTrait::IsTerminator>())
          ops.push_back(&b.back());
  };
  while (!ops.empty() || !values.empty()) {
    if (!values.empty()) {
      visitValue(values.pop_back_val());
      continue;
    }
    Operation *op = ops.pop_back_val();
    if (!seenOps.insert(op).second)
      continue;
    if (auto st = dyn_cast<StageOp>(op))
      if (Operation *buffer = st.getBuffer().getDefiningOp()) {
        auto it = brokenBuffers.find(buffer);
        if (it != brokenBuffers.end())
          return *it;
      }
    values.append(op->operand_begin(), op->operand_end());
  }
  return std::nullopt;
}

} // namespace argus::verify::detail
