//===- MBarrierProtocol.cpp - how kernels use mbarrier rings --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The implicit checks of the sm_90a pipeline protocol (docs/Verifier.md,
// "mbarrier rings"). Every op on a ring of S mbarriers names its *slot* j
// by its stage operand `j rem S`: slot j is stage j % S in phase j / S. The
// producer announces and fills slot j (arrive_expect_tx + bulk copies) after
// waiting for the release of slot j - S; consumers wait for slot j, read
// stage j % S and release it (arrive) once their reads are done. The checks:
//
//   mbarrier-parity     a wait's parity is that of the phase it waits for:
//                       (j / S) % 2 for slot j itself, or (j / S + 1) % 2
//                       for slot j - S (which a fresh barrier passes), the
//                       same choice for every iteration;
//   mbarrier-tx-bytes   announced bytes = bytes the copies of the same slot
//                       deliver, and those copies complete on that slot;
//   mbarrier-arrivals   every phase gets exactly the init count of arrivals,
//                       and no thread arrives twice for one slot;
//   tma-slot            a bulk copy for slot j writes stage j % S, after a
//                       wait for the release of slot j - S when other roles
//                       read the buffer;
//   async-read-order    a read of a stage the bulk copies fill follows a
//                       wait for the slot whose stage it reads;
//   stage-release       an arrive releasing slot j comes after every read
//                       of stage j % S by the thread (wgmma groups retired);
//   mbarrier-index      every index into a ring is below its stage count.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/TagFields.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

namespace {
/// The ring an op uses (its barrier operand's allocation).
MBarrierAllocOp ringOf(Value barrier) {
  return barrier.getDefiningOp<MBarrierAllocOp>();
}

std::string ringName(Value barrier) {
  if (MBarrierAllocOp a = ringOf(barrier))
    return a.getName().str();
  return "mbarrier";
}

/// Bytes a bulk copy delivers: its whole destination tile.
int64_t tmaBytes(TmaLoadOp t) {
  TileType d = t.getDest().getType();
  return d.getNumElements() * (d.getElementType().getIntOrFloatBitWidth() / 8);
}

RoleOp roleOf(Operation *op) { return op->getParentOfType<RoleOp>(); }
} // namespace

MBarrierWaitOp KernelVerifier::lastWaitOn(Operation *op, Operation *ring) {
  for (Operation *p = op; p && p != func.getOperation(); p = p->getParentOp())
    for (Operation *q = p->getPrevNode(); q; q = q->getPrevNode())
      if (auto w = dyn_cast<MBarrierWaitOp>(q);
          w && w.getBarrier().getDefiningOp() == ring)
        return w;
  return {};
}

std::optional<z3::expr> KernelVerifier::lastWaitedSlot(Operation *op,
                                                       Operation *ring,
                                                       const Inst &in,
                                                       z3::expr &ran) {
  ran = ctx.bool_val(true);
  auto onRing = [&](Operation *q) {
    auto w = dyn_cast<MBarrierWaitOp>(q);
    return w && w.getBarrier().getDefiningOp() == ring ? w : MBarrierWaitOp();
  };
  for (Operation *p = op; p && p != func.getOperation(); p = p->getParentOp())
    for (Operation *q = p->getPrevNode(); q; q = q->getPrevNode()) {
      if (MBarrierWaitOp w = onRing(q))
        return ringSlot(w, w.getBarrier(), w.getStage(), in);
      auto loop = dyn_cast<scf::ForOp>(q);
      if (!loop)
        continue;
      // A loop before op: its last iteration's last wait on the ring.
      MBarrierWaitOp last;
      bool nested = false;
      loop.getBody()->walk([&](Operation *o) {
        if (MBarrierWaitOp w = onRing(o)) {
          if (o->getParentOp() == loop.getOperation())
            last = w;
          else
            nested = true;
        }
      });
      if (nested)
        return std::nullopt; // which of its waits ran last is not modelled
      if (!last)
        continue;
      z3::expr lb = bv(0), ub = bv(0);
      int64_t step = 1;
      loopBounds(loop, in, lb, ub, step);
      z3::expr trips = tripCount(lb, ub, bv(step));
      ran = z3::ugt(trips, bv(0));
      Inst li = in.with(loop, lb + (trips - bv(1)) * bv(step), in.guard && ran);
      return ringSlot(last, last.getBarrier(), last.getStage(), li);
    }
  return std::nullopt;
}

/// The wait a bulk copy relies on for the release of its stage: the
/// nearest wait before it in its block on another ring than its own. That
/// ring guards the copy's buffer (checkStageRelease).
static MBarrierWaitOp releaseWaitOf(TmaLoadOp t) {
  for (Operation *q = t->getPrevNode(); q; q = q->getPrevNode())
    if (auto w = dyn_cast<MBarrierWaitOp>(q))
      if (w.getBarrier() != t.getBarrier())
        return w;
  return {};
}

Value ringStageOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<MBarrierWaitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp,
            TmaLoadOp>([](auto o) { return o.getStage(); })
      .Default([](Operation *) { return Value(); });
}

int64_t ringStages(Value barrier) {
  return cast<MBarrierType>(barrier.getType()).getStages();
}

/// The ring operand of an op ringStageOf names a stage of.
static Value ringBarrierOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<MBarrierWaitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp,
            TmaLoadOp>([](auto o) { return o.getBarrier(); })
      .Default([](Operation *) { return Value(); });
}

/// Whether no op of `op`'s kind in `op`'s role (or, outside roles, in the
/// kernel) uses the same stage of ring `barrier` before `op`: the first
/// wait, arrival, announcement or copy of that barrier by the role.
static bool firstUseInRole(Operation *op, Value barrier, Value stage) {
  Operation *scope = op->getParentOfType<RoleOp>();
  if (!scope)
    scope = op->getParentOfType<func::FuncOp>();
  bool before = true, used = false;
  scope->walk<WalkOrder::PreOrder>([&](Operation *o) {
    if (o == op) {
      before = false;
      return WalkResult::interrupt();
    }
    if (before && o->getName() == op->getName() &&
        llvm::is_contained(o->getOperands(), barrier) && ringStageOf(o)) {
      // The same kind of op on the ring: the same stage unless both are
      // constants that differ.
      Value other = ringStageOf(o);
      auto c1 = other.getDefiningOp<arith::ConstantOp>();
      auto c2 = stage.getDefiningOp<arith::ConstantOp>();
      if (!(c1 && c2 && c1.getValue() != c2.getValue()))
        used = true;
    }
    return WalkResult::advance();
  });
  return !used;
}

z3::expr KernelVerifier::ringSlot(Operation *op, Value barrier, Value stage,
                                  const Inst &in) {
  int64_t stages = ringStages(barrier);
  // A constant stage c outside loops, where no op of its role used the
  // ring before (a pipeline prologue; a barrier used once): slot c, the
  // first round.
  if (auto c = stage.getDefiningOp<arith::ConstantOp>())
    if (auto ia = dyn_cast<IntegerAttr>(c.getValue());
        ia && ia.getInt() >= 0 && ia.getInt() < stages &&
        !op->getParentOfType<scf::ForOp>() &&
        !op->getParentOfType<scf::WhileOp>() &&
        firstUseInRole(op, barrier, stage))
      return bv(ia.getInt());
  auto rem = stage.getDefiningOp<arith::RemUIOp>();
  auto c = rem ? rem.getRhs().getDefiningOp<arith::ConstantOp>()
               : arith::ConstantOp();
  auto ia = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
  if (!ia || ia.getValue().getSExtValue() != stages)
    unsupported("the stage index of " + opDesc(op) + " is not `slot rem " +
                std::to_string(stages) +
                "`: the verifier names each phase of ring '" +
                ringName(barrier) + "' by the slot it belongs to");
  return evalIndex(rem.getLhs(), in);
}

z3::expr KernelVerifier::parityOf(const z3::expr &slot, int64_t stages,
                                  int64_t delta) {
  return z3::urem(z3::udiv(slot, bv(stages)) + bv(delta), bv(2));
}

CheckResult KernelVerifier::checkRingIndex(Operation *op) {
  CheckResult res = newCheck("mbarrier-index", op, op);
  Value barrier = ringBarrierOf(op);
  int64_t S = ringStages(barrier);
  res.predicate = "the index into ring '" + ringName(barrier) + "' is in [0, " +
                  std::to_string(S) + ")";
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(op);
    z3::expr idx = evalIndex(ringStageOf(op), in);
    std::optional<z3::model> m = findWitness(res, {z3::uge(idx, bv(S))}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    cx.notes.push_back(
        opDesc(op) + " uses mbarrier " + std::to_string(uval(*m, idx)) +
        " of '" + ringName(barrier) + "', which has " + std::to_string(S) +
        " (a slot modulo " + std::to_string(S) + " is probably intended)");
    res.counterexamples.push_back(cx);
  });
  return res;
}

void KernelVerifier::checkMBarriers(std::vector<CheckResult> &out) {
  func.walk([&](Operation *op) {
    if (ringStageOf(op))
      out.push_back(checkRingIndex(op));
    if (auto w = dyn_cast<MBarrierWaitOp>(op))
      out.push_back(checkWaitParity(w));
    else if (auto e = dyn_cast<MBarrierArriveExpectTxOp>(op))
      out.push_back(checkExpectTx(e));
    else if (auto r = dyn_cast<MBarrierAllocOp>(op))
      out.push_back(checkArrivals(r));
    else if (auto t = dyn_cast<TmaLoadOp>(op)) {
      out.push_back(checkTmaSlot(t));
      if (t.getMulticast())
        out.push_back(checkClusterLockstep(t));
    } else if (auto a = dyn_cast<MBarrierArriveOp>(op)) {
      if (a.getCluster())
        out.push_back(checkClusterLockstep(a));
      CheckResult r = checkStageRelease(a);
      if (!r.kind.empty())
        out.push_back(r);
    }
  });
}

CheckResult KernelVerifier::checkWaitParity(MBarrierWaitOp w) {
  CheckResult res = newCheck("mbarrier-parity", w, w);
  int64_t S = ringStages(w.getBarrier());
  res.predicate = "the parity is that of the phase waited for, for every "
                  "iteration: (slot / " +
                  std::to_string(S) + ") % 2 (the slot itself) or (slot / " +
                  std::to_string(S) + " + 1) % 2 (the slot one round back)";
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(w);
    z3::expr j = ringSlot(w, w.getBarrier(), w.getStage(), in);
    z3::expr p = evalIndex(w.getParity(), in);
    z3::expr own = parityOf(j, S, 0), back = parityOf(j, S, 1);
    // The intended reading: the slot itself unless the parity never matches
    // it (a producer waiting for the release one round back).
    std::optional<z3::model> probe;
    bool ownPlausible =
        solveSmallFirst({in.guard, p == own}, probe) != z3::unsat;
    z3::expr want = ownPlausible ? own : back;
    std::optional<z3::model> m = findWitness(res, {p != want}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    int64_t js = uval(*m, j);
    cx.notes.push_back(
        "waits on " + ringName(w.getBarrier()) + "[stage " +
        std::to_string(js % S) + "] for slot " + std::to_string(js) +
        " with parity " + std::to_string(uval(*m, p)) + ", but slot " +
        std::to_string(js) + " is phase " + std::to_string(js / S) +
        " of that barrier: " +
        (ownPlausible
             ? "waiting for it needs parity " + std::to_string((js / S) % 2)
             : "waiting for the release one round back needs "
               "parity " +
                   std::to_string((js / S + 1) % 2)) +
        " (a wrong parity passes at once on the phase before, or never "
        "returns: deadlock)");
    res.counterexamples.push_back(cx);
  });
  return res;
}

CheckResult KernelVerifier::checkExpectTx(MBarrierArriveExpectTxOp e) {
  CheckResult res = newCheck("mbarrier-tx-bytes", e, e);
  res.predicate = "the " + std::to_string(e.getBytes()) +
                  " bytes announced are the bytes the bulk copies of the "
                  "same slot deliver";
  std::vector<TmaLoadOp> copies;
  int64_t delivered = 0;
  for (Operation &op : *e->getBlock())
    if (auto t = dyn_cast<TmaLoadOp>(op);
        t && t.getBarrier() == e.getBarrier()) {
      copies.push_back(t);
      delivered += tmaBytes(t);
    }
  runCheck({&res}, [&](Query &Q) {
    // Copies on this ring elsewhere could land in any phase.
    func.walk([&](TmaLoadOp t) {
      if (t.getBarrier() == e.getBarrier() && t->getBlock() != e->getBlock())
        unsupported("the bulk copy at " + locStr(t.getLoc()) +
                    " completes on ring '" + ringName(e.getBarrier()) +
                    "' outside the block of its announcement");
    });
    Inst in = freshInst(e);
    z3::expr j = ringSlot(e, e.getBarrier(), e.getStage(), in);
    z3::expr bad =
        ctx.bool_val(delivered != static_cast<int64_t>(e.getBytes()));
    std::vector<std::pair<TmaLoadOp, z3::expr>> slots;
    for (TmaLoadOp t : copies) {
      z3::expr jt = ringSlot(t, t.getBarrier(), t.getStage(), in);
      slots.push_back({t, jt});
      bad = bad || jt != j;
    }
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    int64_t js = uval(*m, j);
    cx.notes.push_back(
        "announces " + std::to_string(e.getBytes()) + " bytes on " +
        ringName(e.getBarrier()) + " slot " + std::to_string(js) + "; the " +
        std::to_string(copies.size()) + " bulk copies after it deliver " +
        std::to_string(delivered) + " bytes");
    for (auto &[t, jt] : slots)
      if (uval(*m, jt) != js)
        cx.notes.push_back(
            "the copy at " + locStr(t.getLoc()) + " completes on slot " +
            std::to_string(uval(*m, jt)) + ", not slot " + std::to_string(js));
    if (delivered != static_cast<int64_t>(e.getBytes()))
      cx.notes.push_back(
          delivered < static_cast<int64_t>(e.getBytes())
              ? "the phase waits for bytes that never come: deadlock"
              : "the phase completes before every copy has landed");
    res.counterexamples.push_back(cx);
  });
  return res;
}

CheckResult KernelVerifier::checkArrivals(MBarrierAllocOp ring) {
  CheckResult res = newCheck("mbarrier-arrivals", ring, ring);
  int64_t need = ring.getArrivals();
  res.predicate = "each arrival on '" + ring.getName().str() +
                  "' completes a phase with exactly " + std::to_string(need) +
                  " arrivals, at most one per thread and slot";
  struct Arrival {
    Operation *op;
    Value stage;
    int64_t count; // arrivals one instance makes
  };
  std::vector<Arrival> arrivals;
  bool waited = false;
  for (Operation *user : ring->getUsers()) {
    if (auto a = dyn_cast<MBarrierArriveOp>(user))
      // A cluster-wide arrive: every block's threads arrive on each block's
      // barrier for the slot (cluster-lockstep).
      arrivals.push_back(
          {a, a.getStage(),
           *getExecutingThreads(a) * (a.getCluster() ? clusterSize() : 1)});
    else if (auto e = dyn_cast<MBarrierArriveExpectTxOp>(user))
      arrivals.push_back({e, e.getStage(), 1});
    else if (isa<MBarrierWaitOp>(user))
      waited = true;
  }
  runCheck({&res}, [&](Query &Q) {
    if (arrivals.empty()) {
      if (!waited) {
        res.status = Status::Proved;
        return;
      }
      // Nobody arrives: the first wait never returns.
      for (Operation *user : ring->getUsers())
        if (auto w = dyn_cast<MBarrierWaitOp>(user)) {
          Inst in = freshInst(w);
          std::optional<z3::model> m =
              findWitness(res, {ctx.bool_val(true)}, in);
          if (!m)
            return;
          Counterexample cx;
          fillCommon(cx, *m, in);
          cx.notes.push_back("nothing ever arrives on '" +
                             ring.getName().str() + "': the wait at " +
                             locStr(w.getLoc()) + " never returns (deadlock)");
          res.counterexamples.push_back(cx);
          return;
        }
    }
    for (const Arrival &a : arrivals) {
      if (a.count == need)
        continue;
      Inst in = freshInst(a.op);
      std::optional<z3::model> m = findWitness(res, {ctx.bool_val(true)}, in);
      if (!m)
        continue; // never executed
      Counterexample cx;
      fillCommon(cx, *m, in);
      RoleOp role = roleOf(a.op);
      cx.notes.push_back(
          opDesc(a.op) + " makes " + std::to_string(a.count) +
          " arrival(s) per slot (" +
          (isa<MBarrierArriveExpectTxOp>(a.op)
               ? std::string("one elected thread")
               : "every thread of " +
                     (role ? "role '" + role.getName().str() + "'"
                           : std::string("the block")) +
                     (cast<MBarrierArriveOp>(a.op).getCluster()
                          ? " in each of the cluster's " +
                                std::to_string(clusterSize()) + " blocks"
                          : std::string())) +
          ") but '" + ring.getName().str() + "' was initialised for " +
          std::to_string(need) +
          (a.count < need
               ? ": a phase completes only with the arrivals of several "
                 "slots, or never (deadlock)"
               : ": a phase completes before every thread has arrived"));
      res.counterexamples.push_back(cx);
      return;
    }
    if (arrivals.size() > 1) {
      llvm::SmallPtrSet<Operation *, 4> roles;
      for (const Arrival &a : arrivals)
        roles.insert(roleOf(a.op).getOperation());
      if (roles.size() > 1)
        unsupported("several roles arrive on ring '" + ring.getName().str() +
                    "'");
    }
    // No thread arrives twice for one slot: two distinct instances never
    // name the same slot.
    for (size_t x = 0; x < arrivals.size(); ++x)
      for (size_t y = x; y < arrivals.size(); ++y) {
        std::vector<LoopVar> lx, ly;
        Inst ix = freshInst(arrivals[x].op, false, &lx);
        Inst iy = freshInst(arrivals[y].op, false, &ly);
        z3::expr jx = ringSlot(arrivals[x].op, ring, arrivals[x].stage, ix);
        z3::expr jy = ringSlot(arrivals[y].op, ring, arrivals[y].stage, iy);
        z3::expr distinct = ctx.bool_val(x != y);
        if (x == y)
          for (size_t k = 0; k < lx.size(); ++k)
            distinct = distinct || lx[k].iv != ly[k].iv;
        std::optional<z3::model> m =
            findWitness(res, {ix.guard, iy.guard, distinct, jx == jy}, ix);
        if (!m) {
          if (res.status != Status::Proved)
            return;
          continue;
        }
        Counterexample cx;
        fillCommon(cx, *m, ix);
        std::string second;
        for (auto &[loop, iv] : iy.ivs)
          second += " " + loopName(loop) + " = " + std::to_string(uval(*m, iv));
        cx.notes.push_back(
            "a thread arrives twice for slot " + std::to_string(uval(*m, jx)) +
            " of '" + ring.getName().str() + "': at " +
            locStr(arrivals[x].op->getLoc()) + " (this iteration) and at " +
            locStr(arrivals[y].op->getLoc()) + " (" +
            (second.empty() ? std::string("no loop") : second.substr(1)) +
            "); the extra arrival completes a later phase early");
        res.counterexamples.push_back(cx);
        return;
      }
    // Every phase waited for receives its arrivals (PhaseLiveness.cpp).
    // What the solver does not show within its budget is said in the
    // predicate; a confirmed deadlock is a violation.
    std::string gap;
    try {
      gap = checkPhasesArrive(ring, res);
    } catch (const Unsupported &u) {
      gap = u.reason;
    }
    if (res.status != Status::Proved)
      return;
    res.predicate +=
        gap.empty()
            ? "; every phase a wait needs is completed by arrivals that wait "
              "for nothing behind the wait (no deadlock on this ring)"
            : "; not shown (liveness): " + gap;
  });
  return res;
}

CheckResult KernelVerifier::checkTmaSlot(TmaLoadOp t) {
  CheckResult res = newCheck("tma-slot", t, t);
  int64_t S = ringStages(t.getBarrier());
  res.predicate = "the bulk copy for slot j writes stage j % " +
                  std::to_string(S) +
                  ", after waiting for the release of slot j - " +
                  std::to_string(S) + " when other roles read the stage";
  runCheck({&res}, [&](Query &Q) {
    auto stage = t.getDest().getDefiningOp<StageOp>();
    if (!stage)
      unsupported("the destination of " + opDesc(t) +
                  " is not a stage of an argus.alloc buffer");
    if (stage.getBuffer().getType().getStages() != S)
      unsupported("buffer and ring '" + ringName(t.getBarrier()) +
                  "' have different stage counts");
    Inst in = freshInst(t);
    z3::expr j = ringSlot(t, t.getBarrier(), t.getStage(), in);
    z3::expr st = evalIndex(stage.getIndex(), in);
    z3::expr bad = st != z3::urem(j, bv(S));
    // Other roles reading the buffer must have released the stage: the
    // copy follows a wait, one round back, on a ring they arrive on.
    Value root = getMemoryRoot(t.getDest());
    RoleOp mine = roleOf(t);
    bool readElsewhere = false;
    func.walk([&](Operation *op) {
      if (readsRoot(op, root) && roleOf(op) != mine)
        readElsewhere = true;
    });
    std::string release;
    MBarrierWaitOp relWait;
    if (readElsewhere) {
      relWait = releaseWaitOf(t);
      if (!relWait) {
        // Only the first round (slots below S) fills stages nobody read.
        bad = bad || z3::uge(j, bv(S));
        release = "no mbarrier wait precedes the copy in its block: it may "
                  "overwrite stage data other roles still read (write after "
                  "read)";
      } else {
        z3::expr jw =
            ringSlot(relWait, relWait.getBarrier(), relWait.getStage(), in);
        z3::expr pw = evalIndex(relWait.getParity(), in);
        int64_t Sw = ringStages(relWait.getBarrier());
        if (Sw != S)
          unsupported("the release ring '" + ringName(relWait.getBarrier()) +
                      "' and the fill ring have different stage counts");
        bad = bad || jw != j || pw != parityOf(j, S, 1);
        // A multicast copy refills the stage in every block of the
        // cluster: every block's consumers must have released it here.
        if (t.getMulticast())
          for (Operation *u : relWait.getBarrier().getUsers())
            if (auto a = dyn_cast<MBarrierArriveOp>(u);
                a && !a.getCluster() && release.empty()) {
              bad = bad || z3::uge(j, bv(S));
              release = "the multicast copy refills stage " +
                        std::string("j % ") + std::to_string(S) +
                        " in every block of the cluster, but the arrive at " +
                        locStr(a.getLoc()) + " releases it on its own " +
                        "block's '" + ringName(relWait.getBarrier()) +
                        "' only (add `cluster`): another block's consumers "
                        "may still read what this copy overwrites (write "
                        "after read)";
            }
      }
    }
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    int64_t js = uval(*m, j), ss = uval(*m, st);
    if (ss != js % S)
      cx.notes.push_back("the copy for slot " + std::to_string(js) +
                         " writes stage " + std::to_string(ss) + " but slot " +
                         std::to_string(js) + " is stage " +
                         std::to_string(js % S));
    if (!release.empty() && js >= S)
      cx.notes.push_back(release);
    if (relWait) {
      z3::expr jw =
          ringSlot(relWait, relWait.getBarrier(), relWait.getStage(), in);
      z3::expr pw = evalIndex(relWait.getParity(), in);
      int64_t jws = uval(*m, jw), pws = uval(*m, pw);
      if (jws != js || pws != (js / S + 1) % 2)
        cx.notes.push_back(
            "before the copy for slot " + std::to_string(js) +
            ", the wait at " + locStr(relWait.getLoc()) + " waits on " +
            ringName(relWait.getBarrier()) + " slot " + std::to_string(jws) +
            " with parity " + std::to_string(pws) + "; the release of slot " +
            std::to_string(js) + " - " + std::to_string(S) + " needs slot " +
            std::to_string(js) + " with parity " +
            std::to_string((js / S + 1) % 2) +
            (pws == (js / S) % 2 && jws == js
                 ? " (waiting for this slot's own release never returns: "
                   "deadlock)"
                 : " (otherwise the copy may overwrite a stage still being "
                   "read)"));
    }
    res.counterexamples.push_back(cx);
  });
  return res;
}

CheckResult KernelVerifier::checkAsyncReadOrder(Operation *reader,
                                                Value source) {
  CheckResult res = newCheck("async-read-order", reader, reader);
  Value root = getMemoryRoot(source);
  TmaLoadOp fill;
  func.walk([&](TmaLoadOp t) {
    if (getMemoryRoot(t.getDest()) == root)
      fill = t;
  });
  std::string mem = "shared memory";
  if (auto a = root.getDefiningOp<AllocOp>())
    mem = a.getName().str();
  res.predicate = "the stage of " + mem +
                  " read here belongs to the slot whose completion the last "
                  "wait before it observed";
  runCheck({&res}, [&](Query &Q) {
    Value ring = fill.getBarrier();
    int64_t S = ringStages(ring);
    MBarrierWaitOp w = lastWaitOn(reader, ring.getDefiningOp());
    Inst in = freshInst(reader);
    // Through transposes and reinterprets: the same bytes of the stage.
    Value viewed = source;
    while (Operation *d = viewed.getDefiningOp()) {
      if (auto t = dyn_cast<TransposeOp>(d))
        viewed = t.getInput();
      else if (auto r = dyn_cast<ReinterpretOp>(d))
        viewed = r.getInput();
      else
        break;
    }
    auto stage = viewed.getDefiningOp<StageOp>();
    if (!stage)
      unsupported("the stage read at " + opDesc(reader) +
                  " is not an argus.stage");
    z3::expr st = evalIndex(stage.getIndex(), in);
    if (!w) {
      std::optional<z3::model> m = findWitness(res, {ctx.bool_val(true)}, in);
      if (!m)
        return;
      Counterexample cx;
      fillCommon(cx, *m, in);
      cx.notes.push_back("no wait on '" + ringName(ring) +
                         "' precedes the read of " + mem + " stage " +
                         std::to_string(uval(*m, st)) +
                         ": the bulk copies filling it may not have landed");
      res.counterexamples.push_back(cx);
      return;
    }
    z3::expr j = ringSlot(w, ring, w.getStage(), in);
    z3::expr p = evalIndex(w.getParity(), in);
    z3::expr bad = st != z3::urem(j, bv(S)) || p != parityOf(j, S, 0);
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    int64_t js = uval(*m, j), ss = uval(*m, st), ps = uval(*m, p);
    if (ps != (js / S) % 2)
      cx.notes.push_back(
          "the wait at " + locStr(w.getLoc()) + " has parity " +
          std::to_string(ps) + ", which slot " + std::to_string(js) +
          " (phase " + std::to_string(js / S) +
          ") does not complete: it observes the phase one round earlier, "
          "before slot " +
          std::to_string(js) + "'s copies have landed");
    if (ss != js % S)
      cx.notes.push_back("reads " + mem + " stage " + std::to_string(ss) +
                         " after waiting for slot " + std::to_string(js) +
                         " (stage " + std::to_string(js % S) +
                         "): that stage's copies are not ordered before "
                         "the read");
    res.counterexamples.push_back(cx);
  });
  return res;
}

z3::expr KernelVerifier::executesBefore(Operation *a, const Inst &ia,
                                        Operation *b, const Inst &ib) {
  // The loops around both, outermost first.
  std::vector<scf::ForOp> common;
  for (Operation *p = a->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp())
    if (auto f = dyn_cast<scf::ForOp>(p); f && f->isAncestor(b))
      common.insert(common.begin(), f);
  z3::expr before = ctx.bool_val(false), equal = ctx.bool_val(true);
  for (scf::ForOp f : common) {
    std::optional<z3::expr> x = ia.lookup(f), y = ib.lookup(f);
    if (!x || !y)
      unsupported("an instance without the iteration of a loop around it");
    before = before || (equal && z3::ult(*x, *y));
    equal = equal && *x == *y;
  }
  // The same iterations: the order of the two ops in their innermost
  // common block.
  Region *r = common.empty() ? &func.getBody() : &common.back().getRegion();
  Operation *pa = r->findAncestorOpInRegion(*a);
  Operation *pb = r->findAncestorOpInRegion(*b);
  while (pa && pb && pa == pb && pa->getNumRegions()) {
    // Both inside one op (a role, an scf.if): go one level down.
    Operation *na = nullptr, *nb = nullptr;
    for (Region &sub : pa->getRegions()) {
      if (!na)
        na = sub.findAncestorOpInRegion(*a);
      if (!nb)
        nb = sub.findAncestorOpInRegion(*b);
    }
    if (!na || !nb || na->getBlock() != nb->getBlock())
      unsupported("two ops in different branches");
    pa = na;
    pb = nb;
  }
  if (!pa || !pb || pa->getBlock() != pb->getBlock())
    unsupported("ops whose program order the verifier does not relate");
  bool staticBefore = pa != pb && pa->isBeforeInBlock(pb);
  return before || (equal && ctx.bool_val(staticBefore));
}

CheckResult KernelVerifier::checkStageRelease(MBarrierArriveOp a) {
  // The buffers whose copies wait on this ring: their stages are what an
  // arrive on it releases.
  Operation *ring = a.getBarrier().getDefiningOp();
  llvm::SetVector<Value> roots;
  func.walk([&](TmaLoadOp t) {
    if (MBarrierWaitOp w = releaseWaitOf(t);
        w && w.getBarrier().getDefiningOp() == ring)
      roots.insert(getMemoryRoot(t.getDest()));
  });
  if (roots.empty())
    return {};
  CheckResult res = newCheck("stage-release", a, a);
  int64_t S = ringStages(a.getBarrier());
  res.predicate = "the thread's reads of the stage released here are "
                  "complete (wgmma and bulk store groups retired) before "
                  "the arrive";
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(a);
    z3::expr j = ringSlot(a, a.getBarrier(), a.getStage(), in);
    z3::expr released = z3::urem(j, bv(S));
    z3::expr bad = ctx.bool_val(false);
    z3::expr t = var("thread");
    struct Pending {
      Operation *op;
      z3::expr when;
      std::optional<z3::expr> stage;
    };
    std::vector<Pending> pending;
    for (Value root : roots) {
      std::vector<Candidate> cands;
      std::vector<SyncEvent> evRev;
      // The arriving thread's own reads: other roles' are theirs to release.
      ownRoleOnly = true;
      try {
        walkBefore(a, in, root, AccessKind::Reads, cands, evRev);
      } catch (...) {
        ownRoleOnly = false;
        throw;
      }
      ownRoleOnly = false;
      // Asynchronous reads (wgmma operands, bulk stores) last until their
      // group retires; groups of one kind retire in order: once one of the
      // modelled reads is retired, so is everything older of its kind (the
      // cut-off).
      auto groupOf = [](Operation *op) -> std::optional<SyncEvent::Kind> {
        if (!readsThroughAsyncProxy(op))
          return std::nullopt;
        return asyncGroupOf(op)->commit;
      };
      std::map<SyncEvent::Kind, z3::expr> someRetired;
      auto retiredOf = [&](SyncEvent::Kind k) -> z3::expr & {
        return someRetired.try_emplace(k, ctx.bool_val(false)).first->second;
      };
      for (Candidate &c : cands)
        if (std::optional<SyncEvent::Kind> k = groupOf(c.op); !c.cutoff && k)
          retiredOf(*k) =
              retiredOf(*k) || (c.inst.guard && !unsynchronised(ctx, c, t, t));
      for (Candidate &c : cands) {
        if (c.cutoff) {
          std::set<SyncEvent::Kind> async;
          c.op->walk([&](Operation *p) {
            if (std::optional<SyncEvent::Kind> k = groupOf(p);
                k && readsRoot(p, root))
              async.insert(*k);
          });
          for (SyncEvent::Kind k : async) {
            z3::expr b = c.inst.guard && !retiredOf(k);
            bad = bad || b;
            pending.push_back({c.op, b, std::nullopt});
          }
          continue;
        }
        if (!groupOf(c.op))
          continue; // a synchronous read is done in program order
        SmallVector<Value, 2> read{c.op->getOperand(0)};
        if (isa<MmaAsyncOp>(c.op))
          read.push_back(c.op->getOperand(1));
        for (Value v : read) {
          if (!isSharedTile(v) || getMemoryRoot(v) != root)
            continue;
          MemView mv = resolve(v, c.inst);
          z3::expr b = c.inst.guard && *mv.stage == released &&
                       unsynchronised(ctx, c, t, t);
          bad = bad || b;
          pending.push_back({c.op, b, *mv.stage});
        }
      }
    }
    // Reads of the released slot that come after the arrive: a buffer the
    // ring guards must not be read again for slot j once slot j is
    // released (the producer may refill the stage). Each read's slot is
    // the one its last wait on the buffer's full ring observed.
    struct Late {
      Operation *op;
      z3::expr when;
      z3::expr slot; // the data slot the read expects
    };
    std::vector<Late> late;
    RoleOp role = roleOf(a);
    // The data slot released. The arrive's index names it when a wait of its
    // block uses the same stage value (kempty[s] after kfull[s]); a release
    // written otherwise ((i + S - 1) % S names slot i + S - 1 for data slot
    // i - 1) releases the newest slot of its stage that the role waited for
    // on the buffer's full ring before it.
    bool exactSlot = false;
    for (Operation &o : *a->getBlock())
      if (auto w = dyn_cast<MBarrierWaitOp>(&o);
          w && w.getStage() == a.getStage())
        exactSlot = true;
    z3::expr undetermined = ctx.bool_val(false);
    for (Value root : roots) {
      TmaLoadOp fill;
      func.walk([&](TmaLoadOp t) {
        if (getMemoryRoot(t.getDest()) == root)
          fill = t;
      });
      if (!fill)
        continue;
      Operation *full = fill.getBarrier().getDefiningOp();
      z3::expr ran = ctx.bool_val(true);
      std::optional<z3::expr> jw = exactSlot ? std::optional<z3::expr>(j)
                                             : lastWaitedSlot(a, full, in, ran);
      z3::expr known = jw ? ran : ctx.bool_val(false);
      // rho, the newest slot <= jw of the released stage: jw - back, with
      // back = (jw - j) mod S a constant when the arrive's index is the
      // wait's plus a constant (the common case: no remainder in the
      // query), else in terms of remainders.
      std::optional<z3::expr> rho;
      if (jw) {
        z3::expr diff = (j - *jw).simplify();
        z3::expr back =
            z3::urem(z3::urem(*jw, bv(S)) + bv(S) - released, bv(S));
        if (diff.is_numeral()) {
          unsigned w = diff.get_sort().bv_size();
          uint64_t u = diff.get_numeral_uint64();
          int64_t d = w < 64 && u >= (uint64_t(1) << (w - 1))
                          ? int64_t(u) - (int64_t(1) << w)
                          : int64_t(u);
          back = bv(((-d) % S + S) % S);
        }
        rho = *jw - back;
        known = known && z3::uge(*jw, back);
      }
      func.walk([&](Operation *r) {
        if (roleOf(r) != role || !readsRoot(r, root))
          return;
        MBarrierWaitOp w = lastWaitOn(r, full);
        if (!w)
          return; // async-read-order reports the read
        Inst ir = freshInst(r);
        z3::expr jr = ringSlot(w, w.getBarrier(), w.getStage(), ir);
        z3::expr after =
            ir.guard && !executesBefore(r, ir, a.getOperation(), in);
        undetermined = undetermined ||
                       (!known && after && z3::urem(jr, bv(S)) == released);
        if (!rho)
          return;
        z3::expr b = known && after && jr == *rho;
        bad = bad || b;
        late.push_back({r, b, jr});
      });
    }
    // Usually neither a read released early nor an undetermined slot: one
    // query proves both (two cost about twice as much).
    std::optional<z3::model> none;
    if (solve({bad || undetermined}, none) == z3::unsat) {
      res.status = Status::Proved;
      return;
    }
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m) {
      // No violation; but a read of the stage after the arrive whose data
      // slot may be the released one is not proved safe.
      std::optional<z3::model> um;
      if (res.status == Status::Proved &&
          solve({undetermined}, um) != z3::unsat) {
        res.status = Status::Unknown;
        res.reason = "which data slot this arrive releases is not "
                     "determined (no wait on the full ring before it in its "
                     "role, or a loop before it that may not run), and a "
                     "read of the released stage comes after it";
      }
      return;
    }
    Counterexample cx;
    fillCommon(cx, *m, in);
    for (Late &l : late)
      if (m->eval(l.when, true).is_true()) {
        cx.notes.push_back(
            "releases " + ringName(a.getBarrier()) + " stage " +
            std::to_string(uval(*m, j) % S) + " (the data of slot " +
            std::to_string(uval(*m, l.slot)) + ") but " + opDesc(l.op) +
            " reads that slot's data later: the producer may refill the "
            "stage first (write after read across roles); hint: release "
            "the stage after its last read (on a ring of its own if other "
            "reads follow)");
        res.counterexamples.push_back(cx);
        return;
      }
    for (Pending &p : pending) {
      if (!m->eval(p.when, true).is_true())
        continue;
      cx.notes.push_back(
          "releases " + ringName(a.getBarrier()) + " slot " +
          std::to_string(uval(*m, j)) + " (stage " +
          std::to_string(uval(*m, j) % S) + ") while " + opDesc(p.op) +
          (p.stage ? " reading stage " + std::to_string(uval(*m, *p.stage))
                   : std::string(" (an older iteration)")) +
          " has not retired: the producer may overwrite it during the read "
          "(write after read across roles); hint: " +
          (isa<TmaStoreOp>(p.op) ? "argus.tma_store_wait"
                                 : "argus.wgmma_wait") +
          " with a smaller depth before the arrive");
      break;
    }
    res.counterexamples.push_back(cx);
  });
  return res;
}

} // namespace argus::verify::detail
