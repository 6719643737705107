//===- LatestWriter.cpp - the recency chain and shared-memory reads -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A read of shared memory sees its latest writer: the walk goes backwards
// from the read through the kernel, unrolling each enclosing or preceding
// scf.for `depth` iterations (a "cut-off" candidate stands for anything
// older), and collects the candidate writes with the barriers and
// commit / wait groups between them and the read.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/TagFields.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

bool KernelVerifier::hasRelevant(Operation *op) {
  auto it = relevant.find(op);
  if (it != relevant.end())
    return it->second;
  bool r = false;
  op->walk([&](Operation *p) {
    if (isa<BarrierOp, WaitGroupOp, CommitGroupOp, WgmmaWaitOp, WgmmaCommitOp,
            TmaLoadOp, TmaStoreOp, TmaStoreWaitOp, FenceProxyAsyncOp,
            MBarrierWaitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp>(p) ||
        (isWriteOp(p) && isSharedTile(writeDest(p))) ||
        (isa<LoadOp, CopyOp, CopyAsyncOp>(p) &&
         isSharedTile(p->getOperand(0))) ||
        (isa<MmaOp, MmaAsyncOp>(p) &&
         (isSharedTile(p->getOperand(0)) || isSharedTile(p->getOperand(1)))))
      r = true;
  });
  relevant[op] = r;
  return r;
}

bool KernelVerifier::touchesRoot(Operation *op, Value root, AccessKind kind) {
  bool r = false;
  op->walk([&](Operation *p) {
    if (kind == AccessKind::Reads
            ? readsRoot(p, root)
            : ((isWriteOp(p) && getMemoryRoot(writeDest(p)) == root) ||
               (isa<TmaLoadOp>(p) &&
                getMemoryRoot(cast<TmaLoadOp>(p).getDest()) == root)))
      r = true;
  });
  return r;
}

/// Records `op` in instance `in`, with the sync events met so far (walking
/// backwards) in program order.
static void addCandidate(Operation *op, const Inst &in, bool cutoff,
                         const std::vector<SyncEvent> &evRev,
                         std::vector<Candidate> &out) {
  Candidate c{op, in, cutoff, {}};
  c.events.assign(evRev.rbegin(), evRev.rend());
  out.push_back(c);
}

void KernelVerifier::addCutoff(scf::ForOp loop, const Inst &in, Value root,
                               AccessKind kind, function_ref<z3::expr()> older,
                               std::vector<Candidate> &out,
                               const std::vector<SyncEvent> &evRev) {
  if (!touchesRoot(loop, root, kind))
    return;
  z3::expr g = (in.guard && older()).simplify();
  if (g.is_false())
    return;
  Inst ci = in;
  ci.guard = g;
  addCandidate(loop, ci, true, evRev, out);
}

void KernelVerifier::visitBack(Operation *p, const Inst &in, Value root,
                               AccessKind kind, std::vector<Candidate> &out,
                               std::vector<SyncEvent> &evRev) {
  if (isa<TmaStoreOp>(p)) {
    // A bulk store reads its source until its group retires; it closes its
    // own bulk group, which counts for the earlier stores.
    if (kind == AccessKind::Reads && readsRoot(p, root))
      addCandidate(p, in, false, evRev, out);
    evRev.push_back({SyncEvent::BulkCommit, 0, in.guard, p});
    return;
  }
  if (kind == AccessKind::Reads && readsRoot(p, root)) {
    addCandidate(p, in, false, evRev, out);
    return;
  }
  if (isWriteOp(p)) {
    if (kind == AccessKind::Writes && getMemoryRoot(writeDest(p)) == root)
      addCandidate(p, in, false, evRev, out);
    return;
  }
  if (auto tma = dyn_cast<TmaLoadOp>(p)) {
    // A bulk copy lands when its mbarrier phase completes, not in program
    // order; reads of its stages are checked by the mbarrier protocol.
    if (kind == AccessKind::Writes && getMemoryRoot(tma.getDest()) == root)
      unsupported("the latest writer may be the bulk tensor copy at " +
                  locStr(p->getLoc()) +
                  ", ordered by an mbarrier phase (the mbarrier-protocol "
                  "checks cover that order; tags through it are not "
                  "modelled yet)");
    return;
  }
  if (auto role = dyn_cast<RoleOp>(p)) {
    // Another role's threads: program order says nothing about them.
    if (ownRoleOnly)
      return;
    if (touchesRoot(role, root, AccessKind::Writes) ||
        touchesRoot(role, root, AccessKind::Reads))
      unsupported("warp role '" + role.getName().str() +
                  "' also accesses this memory; across roles only mbarrier "
                  "phases order accesses (not modelled for this access)");
    return;
  }
  if (isa<MBarrierWaitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp>(p))
    return; // ordering across roles: the mbarrier-protocol checks
  if (auto w = dyn_cast<WgmmaWaitOp>(p)) {
    evRev.push_back({SyncEvent::WgmmaWait, static_cast<int64_t>(w.getPending()),
                     in.guard, p});
    return;
  }
  if (isa<WgmmaCommitOp>(p)) {
    evRev.push_back({SyncEvent::WgmmaCommit, 0, in.guard, p});
    return;
  }
  if (auto w = dyn_cast<TmaStoreWaitOp>(p)) {
    evRev.push_back({SyncEvent::BulkWait, static_cast<int64_t>(w.getPending()),
                     in.guard, p});
    return;
  }
  if (isa<FenceProxyAsyncOp>(p)) {
    evRev.push_back({SyncEvent::ProxyFence, 0, in.guard, p});
    return;
  }
  if (isa<BarrierOp>(p)) {
    evRev.push_back({SyncEvent::Barrier, 0, in.guard, p,
                     /*roleScoped=*/p->getParentOfType<RoleOp>() != nullptr});
    return;
  }
  if (auto w = dyn_cast<WaitGroupOp>(p)) {
    evRev.push_back(
        {SyncEvent::Wait, static_cast<int64_t>(w.getPending()), in.guard, p});
    return;
  }
  if (isa<CommitGroupOp>(p)) {
    evRev.push_back({SyncEvent::Commit, 0, in.guard, p});
    return;
  }
  if (p->getNumRegions() == 0 || !hasRelevant(p))
    return;
  if (auto ifOp = dyn_cast<scf::IfOp>(p)) {
    // Both branches, each under its condition (a block-uniform value: the
    // index values the verifier models do not depend on the thread). The
    // guards keep a branch's writes and barriers apart from the other's.
    z3::expr cond = evalBool(ifOp.getCondition(), in);
    if (!ifOp.getElseRegion().empty()) {
      Inst ein = in;
      ein.guard = (in.guard && !cond).simplify();
      if (!ein.guard.is_false())
        walkBlockBack(ifOp.getElseRegion().front(), ein, root, kind, out,
                      evRev);
    }
    Inst tin = in;
    tin.guard = (in.guard && cond).simplify();
    if (!tin.guard.is_false())
      walkBlockBack(ifOp.getThenRegion().front(), tin, root, kind, out, evRev);
    return;
  }
  auto loop = dyn_cast<scf::ForOp>(p);
  if (!loop)
    unsupported("writes or synchronisation inside '" +
                p->getName().getStringRef() +
                "' (scf.for and scf.if are modelled)");
  z3::expr lb = bv(0), ub = bv(0), step = bv(1);
  loopRange(loop, in, lb, ub, step);
  z3::expr n = tripCount(lb, ub, step);
  for (int64_t d = 0; d < depth; ++d) {
    z3::expr g = (in.guard && z3::uge(n, bv(d + 1))).simplify();
    if (g.is_false())
      break;
    z3::expr iv = lb + (n - bv(1 + d)) * step;
    walkBlockBack(*loop.getBody(), in.with(loop, iv, g), root, kind, out,
                  evRev);
  }
  addCutoff(
      loop, in, root, kind, [&] { return z3::uge(n, bv(depth + 1)); }, out,
      evRev);
}

void KernelVerifier::walkBlockBack(Block &b, const Inst &in, Value root,
                                   AccessKind kind, std::vector<Candidate> &out,
                                   std::vector<SyncEvent> &evRev) {
  for (Operation &p : llvm::reverse(b))
    visitBack(&p, in, root, kind, out, evRev);
}

void KernelVerifier::walkBefore(Operation *op, const Inst &in, Value root,
                                AccessKind kind, std::vector<Candidate> &out,
                                std::vector<SyncEvent> &evRev) {
  for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode())
    visitBack(p, in, root, kind, out, evRev);
  Operation *parent = op->getParentOp();
  if (parent == func.getOperation())
    return;
  if (auto role = dyn_cast<RoleOp>(parent)) {
    // The role's threads ran the kernel's top level before the role; the
    // accesses found there count threads from the block's first.
    size_t before = out.size();
    walkBefore(parent, in, root, kind, out, evRev);
    for (size_t i = before; i < out.size(); ++i)
      if (!out[i].accessRole)
        out[i].accessRole = {role.getFirstWarp() * warpSize,
                             role.getNumWarps() * warpSize};
    return;
  }
  if (isa<scf::IfOp>(parent))
    // Inside a taken branch: its condition holds for this instance.
    return walkBefore(parent, in, root, kind, out, evRev);
  auto loop = dyn_cast<scf::ForOp>(parent);
  if (!loop)
    unsupported("read nested in '" + parent->getName().getStringRef() + "'");
  Inst outer = in.without(loop);
  if (hasRelevant(loop)) {
    z3::expr i = *in.lookup(loop);
    z3::expr lb = bv(0), ub = bv(0), step = bv(1);
    loopRange(loop, outer, lb, ub, step);
    // lb + d * step without wrapping (else no such earlier iteration).
    auto back = [&](int64_t d) {
      z3::expr ds = bv(d) * step;
      return z3::bvmul_no_overflow(bv(d), step, false) &&
             z3::bvadd_no_overflow(lb, ds, false) && z3::uge(i, lb + ds);
    };
    for (int64_t d = 1; d <= depth; ++d) {
      z3::expr g = (in.guard && back(d)).simplify();
      if (g.is_false())
        break;
      walkBlockBack(*loop.getBody(), in.with(loop, i - bv(d) * step, g), root,
                    kind, out, evRev);
    }
    addCutoff(
        loop, in, root, kind, [&] { return back(depth + 1); }, out, evRev);
  }
  walkBefore(loop, outer, root, kind, out, evRev);
}

/// All coordinates `c` inside `shape`.
z3::expr KernelVerifier::inShape(const std::vector<z3::expr> &c,
                                 const std::vector<int64_t> &shape) {
  z3::expr in = ctx.bool_val(true);
  for (size_t k = 0; k < c.size() && k < shape.size(); ++k)
    in = in && z3::ult(c[k], bv(shape[k]));
  return in;
}

Tags KernelVerifier::readShared(const MemView &mv,
                                const std::vector<z3::expr> &c, const Inst &in,
                                Operation *reader,
                                std::optional<z3::expr> readerThread,
                                bool wantTags) {
  if (filledByBulkCopies(mv.root))
    return readBulkFilled(mv, c, in, reader, wantTags);
  ReadRec rec{reader,
              mv.name,
              c,
              *mv.stage,
              *mv.base + memOffset(mv.layout, mv.shape, c, in.guard),
              ctx.bool_val(false),
              ctx.bool_val(false),
              ctx.bool_val(false),
              {}};
  z3::expr addr = rec.addr;
  z3::expr tr =
      readerThread ? *readerThread : rangeVar("reader_thread", threads);
  std::vector<Candidate> cands;
  std::vector<SyncEvent> evRev;
  walkBefore(reader, in, mv.root, AccessKind::Writes, cands, evRev);

  z3::expr prevActive = ctx.bool_val(false);
  z3::expr defined = ctx.bool_val(false), cut = ctx.bool_val(false),
           unsync = ctx.bool_val(false);
  std::vector<std::pair<z3::expr, Tags>> tagChain;
  // The writing (thread, slot) of the latest writer: at most one candidate
  // is selected, so candidates writing through one thread layout share the
  // variables (and the terms of the layout's inverse, where the written
  // coordinate is the same), which the solver then decomposes once.
  std::vector<std::pair<L::Layout, std::pair<z3::expr, z3::expr>>> writerVars;
  for (Candidate &cd : cands) {
    if (cd.cutoff) {
      z3::expr sel = cd.inst.guard && !prevActive;
      cut = cut || sel;
      rec.cands.push_back({cd.op, true, sel, {}, {}, {}, cd.inst.ivs, {}, ""});
      prevActive = prevActive || cd.inst.guard;
      continue;
    }
    std::string why = checkFullStage(cd.op);
    if (!why.empty())
      unsupported("the write footprint of " + opDesc(cd.op) +
                  " is not a whole stage (" + why + ")");
    MemView wv = resolve(writeDest(cd.op), cd.inst);
    std::vector<z3::expr> cw;
    z3::expr active = ctx.bool_val(false);
    bool same = sameStageLayout(mv, wv);
    if (same) {
      // Reader and writer see the stage through one bijective layout and
      // stages lie cosz apart (a power of two, so no wrap-around hides an
      // overlap): the writer covers the read iff it writes the same stage,
      // and then writes the same coordinate. This spares the solver the
      // layout's inverse (a swizzle) per candidate. A read coordinate
      // outside the tile matches no writer (reported as unwritten).
      cw = c;
      active = cd.inst.guard && *wv.base == *mv.base && inShape(c, mv.shape);
    } else {
      active = cd.inst.guard && z3::uge(addr, *wv.base) &&
               z3::ult(addr, *wv.base + bv(wv.cosz));
      // The written element: unique by the bijection.
      cw = coordVars("wcoord", wv.shape);
    }
    z3::expr sel = active && !prevActive;
    prevActive = prevActive || active;
    if (!same)
      assume(sel, *wv.base + memOffset(wv.layout, wv.shape, cw, sel) == addr);
    // The writing thread, for the synchronisation checks only: a tag
    // evaluation depends on the element, not on who wrote it (counterexamples
    // name the writer from the model's element).
    std::optional<z3::expr> wt, wsl;
    if (!wantTags) {
      L::Layout tvl = *accessLayout(cd.op);
      auto known = llvm::find_if(writerVars,
                                 [&](const auto &e) { return e.first == tvl; });
      if (known == writerVars.end()) {
        writerVars.push_back({tvl,
                              {rangeVar("writer_thread", tvl.mode(0).size()),
                               rangeVar("writer_slot", tvl.mode(1).size())}});
        known = std::prev(writerVars.end());
      }
      wt = known->second.first;
      wsl = known->second.second;
      assume(sel, tvLin(tvl, *wt, *wsl, sel) == lin(cw, wv.shape));
      z3::expr viol = unsynchronised(ctx, cd, *wt, tr);
      if (readsThroughAsyncProxy(reader))
        viol = viol || notFencedForAsyncProxy(ctx, cd, *wt, tr);
      unsync = unsync || (sel && viol);
    }
    defined = defined || sel;

    ReadRec::Cand rc{cd.op, false, sel, cw, wt, wsl, cd.inst.ivs, {}, ""};
    if (wantTags) {
      Tags t;
      if (auto st = dyn_cast<StoreOp>(cd.op))
        t = regTags(st.getValue(), cw, cd.inst);
      else {
        Value src = cd.op->getOperand(0);
        t = memTags(src, cw, cd.inst, cd.op, wt);
        MemView sv = resolve(src, cd.inst);
        rc.srcName = sv.im2col ? "im2col(" + sv.name + ")" : sv.name;
        if (!sv.shared && !sv.gather)
          for (size_t k = 0; k < sv.offsets.size(); ++k)
            rc.srcGlobal.push_back(sv.offsets[k] + cw[sv.perm[k]]);
      }
      tagChain.push_back({sel, t});
    }
    rec.cands.push_back(rc);
  }
  // A read that does not execute (an instance whose guard fails: the
  // previous iteration of a loop's first, a branch not taken) reads nothing
  // and is vacuously defined. Requiring a writer there made every query ask
  // for an executing previous iteration: a loop-carried fragment's first
  // iteration (the prologue's load) was never checked.
  rec.defined = defined || !in.guard;
  rec.cut = cut;
  rec.unsync = unsync;
  q->reads.push_back(rec);
  Tags out;
  if (!wantTags || tagChain.empty())
    return out;
  // The read's fields are those every writer that may be the latest has;
  // a writer hidden by a later full overwrite does not count.
  std::set<std::string> all;
  for (auto &[sel, t] : tagChain)
    for (auto &[k, e] : t)
      all.insert(k);
  std::set<std::string> common = all;
  for (auto &[sel, t] : tagChain) {
    if (t.size() == all.size())
      continue;
    std::optional<z3::model> m;
    if (solve({sel}, m) == z3::unsat)
      continue;
    for (auto it = common.begin(); it != common.end();)
      it = t.count(*it) ? std::next(it) : common.erase(it);
  }
  for (const std::string &f : common) {
    z3::expr e = var(kUndefinedTagPrefix.str() + f);
    for (auto it = tagChain.rbegin(); it != tagChain.rend(); ++it) {
      auto fi = it->second.find(f);
      // A writer without the field is never the latest here (checked).
      e = fi == it->second.end() ? e : z3::ite(it->first, fi->second, e);
    }
    out.insert_or_assign(f, e);
  }
  return out;
}

} // namespace argus::verify::detail
