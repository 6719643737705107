//===- PhaseLiveness.cpp - every waited phase of a ring completes ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The liveness half of mbarrier-arrivals (docs/Verifier.md, "mbarrier
// rings"). A wait for slot j of a ring of S stages waits on stage
// s = j % S for its m-th phase completion: m = j / S + 1 with the slot's own
// parity, m = j / S with the parity one round back (m = 0 passes at once).
// Arrival instances name distinct slots (checkArrivals), each names its
// stage (slot rem S) and makes the init count of arrivals, so the wait
// returns once m arrival instances on stage s have run. Two parts:
//
//   existence  for some offset d of the ring (0, or S: kernels name a
//              release by the slot it completes, or by the refill it
//              enables), the slot of the last completion a wait needs,
//              s + d + (m - 1) S, is named by an arrival instance; below
//              every named slot x >= d + S, x - S is named too; and names
//              grow along each thread's program, so the m arrivals are
//              there and precede the last one;
//   order      no cycle: every wait W' that precedes that arrival instance
//              A in A's thread has its own last arrival made before W in
//              W's thread. Then a state where every thread waits is
//              impossible: take W as early as any waiting thread of its
//              role; an arrival it lacks is behind some W' of A's role,
//              whose arrivals W's role has all made.
//
// "For every wait instance some arrival instance names the slot" is a
// quantifier alternation, so the arrival instance is constructed instead,
// as output-coverage constructs writers: its loops at the iterations of the
// wait's loops of the same depth (the deepest matched one also up to S + 1
// iterations earlier), an innermost loop whose slot step is a constant
// solved from the slot. A proof holds whatever the candidate was. A missing
// arrival is confirmed by counting the arrival instances on the stage in
// the model's launch (a weak candidate never gives a false alarm); what is
// not shown is said in the check's predicate. Rings used in grid-stride
// loops are not followed (their counters' products of symbolic values put
// these queries beyond their budget).
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"
#include "Subterms.h"

#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

namespace {
/// At most this many arrival instances are counted to confirm a missing
/// one (a wait for a later completion is reported unknown).
constexpr size_t kCountedArrivals = 64;
/// The budget of each liveness proof (ms): the counters of persistent tile
/// loops make some of them nonlinear, and a proof not found quickly is
/// rarely found later.
constexpr unsigned kLivenessMs = 300;

bool isArrival(Operation *op) {
  return isa<MBarrierArriveOp, MBarrierArriveExpectTxOp>(op);
}

/// The arrival ops on `ring`.
std::vector<Operation *> arrivalsOn(MBarrierAllocOp ring) {
  std::vector<Operation *> out;
  for (Operation *u : ring->getUsers())
    if (isArrival(u))
      out.push_back(u);
  return out;
}
} // namespace

std::vector<KernelVerifier::ArrivalInstance>
KernelVerifier::arrivalNaming(Operation *op, Value ring, const z3::expr &x,
                              const Inst &near) {
  // The instance is evaluated in a scratch query: what its evaluation
  // defines (quotients, remainders, lemmas) is stated over its fresh
  // induction variables, and only its rewriting over a candidate's
  // iterations may join the query.
  Query scratch;
  std::vector<LoopVar> loops;
  Inst in(ctx.bool_val(true));
  z3::expr slot = bv(0);
  {
    llvm::SaveAndRestore<Query *> inScratch(q, &scratch);
    in = freshInst(op, /*guardOnly=*/true, &loops);
    slot = ringSlot(op, ring, ringStageOf(op), in);
  }
  std::vector<z3::expr> ivs;
  for (const LoopVar &l : loops)
    ivs.push_back(l.iv);
  auto stepOf = [&](const LoopVar &l) {
    return l.step ? bv(l.step) : l.stepTerm;
  };
  size_t depth = loops.size();
  std::vector<ArrivalInstance> out;
  // A candidate: the loops' induction variables `to`. What the evaluation
  // defined joins the query over it; its obligations (no wrap-around) hold
  // wherever the candidate is an instance, as the verifier assumes them at
  // every instance.
  auto emit = [&](const std::vector<z3::expr> &to) {
    for (const z3::expr &c : scratch.cons)
      q->cons.push_back(substituted(c, ivs, to));
    for (const Obligation &o : scratch.obligations)
      q->cons.push_back(substituted(z3::implies(o.guard, o.cond), ivs, to));
    Inst inst(substituted(in.guard && slot == x, ivs, to));
    for (size_t l = 0; l < depth; ++l)
      inst.ivs.push_back({loops[l].loop, to[l]});
    out.push_back({inst.guard, inst});
  };
  if (depth == 0) {
    emit({});
    return out;
  }
  // Near `near`: each loop at the iteration of near's loop of the same
  // depth (the term near's own closed forms use), except an innermost loop
  // whose slot step is a constant, solved from x; the deepest matched loop
  // also b = 1..S+1 iterations earlier (the slots before near's).
  auto matched = [&](size_t l, const std::vector<z3::expr> &from,
                     const std::vector<z3::expr> &to,
                     int64_t back) -> std::optional<z3::expr> {
    if (l >= near.ivs.size())
      return std::nullopt;
    z3::expr lb = substituted(loops[l].lb, from, to);
    z3::expr step = stepOf(loops[l]);
    auto nearLoop = cast<scf::ForOp>(near.ivs[l].first);
    z3::expr nlb = bv(0), nub = bv(0), nstep = bv(1);
    loopRange(nearLoop, near, nlb, nub, nstep);
    uint64_t one = 0;
    bool unit = nstep.simplify().is_numeral_u64(one) && one == 1;
    z3::expr span = near.ivs[l].second - nlb;
    z3::expr iters = unit ? span : z3::udiv(span, nstep);
    if (back > 0)
      iters = iters - bv(back);
    return lb + (z3::eq(step.simplify(), bv(1)) ? iters : iters * step);
  };
  const LoopVar &inner = loops.back();
  // The innermost loop's slot step, over the outer loops at near's.
  std::optional<z3::expr> innerStep;
  {
    std::vector<z3::expr> from, to;
    for (size_t l = 0; l + 1 < depth; ++l) {
      std::optional<z3::expr> iv = matched(l, from, to, 0);
      if (!iv)
        return out;
      from.push_back(loops[l].iv);
      to.push_back(*iv);
    }
    z3::expr lb = substituted(inner.lb, from, to);
    from.push_back(inner.iv);
    to.push_back(lb);
    z3::expr base = substituted(slot, from, to);
    to.back() = lb + stepOf(inner);
    z3::expr c = (substituted(slot, from, to) - base).simplify();
    if (c.is_numeral())
      innerStep = c;
  }
  size_t solvedFrom = innerStep ? depth - 1 : depth;
  // (With no matched loop, one candidate: the loop solved from x.)
  int64_t borrows = solvedFrom > 0 ? ringStages(ring) + 1 : 0;
  for (int64_t b = 0; b <= borrows; ++b) {
    std::vector<z3::expr> from, to;
    for (size_t l = 0; l < solvedFrom; ++l) {
      std::optional<z3::expr> iv =
          matched(l, from, to, l + 1 == solvedFrom ? b : 0);
      if (!iv)
        return out;
      from.push_back(loops[l].iv);
      to.push_back(*iv);
    }
    if (innerStep) {
      z3::expr lb = substituted(inner.lb, from, to);
      std::vector<z3::expr> f = from, t = to;
      f.push_back(inner.iv);
      t.push_back(lb);
      z3::expr rest = x - substituted(slot, f, t);
      uint64_t cv = 0;
      z3::expr n = innerStep->is_numeral_u64(cv) && cv == 1
                       ? rest
                       : z3::udiv(rest, *innerStep);
      to.push_back(lb + n * stepOf(inner));
    }
    emit(to);
  }
  return out;
}

KernelVerifier::PhaseNeed KernelVerifier::phaseNeed(MBarrierWaitOp w,
                                                    const Inst &in) {
  int64_t S = ringStages(w.getBarrier());
  z3::expr j = ringSlot(w, w.getBarrier(), w.getStage(), in);
  z3::expr p = evalIndex(w.getParity(), in);
  z3::expr back = p == parityOf(j, S, 1);
  z3::expr round = z3::udiv(j, bv(S));
  return {z3::urem(j, bv(S)), z3::ite(back, round, round + bv(1))};
}

z3::expr KernelVerifier::lastNeeded(const PhaseNeed &need, int64_t offset,
                                    int64_t stages) {
  return need.stage + bv(offset) + (need.count - bv(1)) * bv(stages);
}

z3::expr KernelVerifier::namedBy(Operation *ringOp, const z3::expr &x,
                                 const Inst &near, Operation *role,
                                 Operation *before, const Inst *beforeIn) {
  auto ring = cast<MBarrierAllocOp>(ringOp);
  z3::expr any = ctx.bool_val(false);
  for (Operation *a : arrivalsOn(ring)) {
    if (role && a->getParentOfType<RoleOp>() != role)
      continue;
    for (ArrivalInstance &c : arrivalNaming(a, ring, x, near))
      any = any ||
            (c.valid && (before ? executesBefore(a, c.in, before, *beforeIn)
                                : ctx.bool_val(true)));
  }
  return any;
}

/// Solves `conds` on a fresh query (the launch's constraints): whether they
/// are unsatisfiable. The current query is left as it was.
bool KernelVerifier::provedUnsat(
    const std::function<std::vector<z3::expr>()> &conds) {
  Query P;
  llvm::SaveAndRestore<Query *> onP(q, &P);
  baseCons(P);
  std::vector<z3::expr> c = conds();
  std::optional<z3::model> m;
  llvm::SaveAndRestore<bool> proofOnly(unsatOnly, true);
  return solve(c, m, -1, kLivenessMs) == z3::unsat;
}

KernelVerifier::PhaseNaming KernelVerifier::phaseNaming(MBarrierAllocOp ring) {
  if (auto it = ringNaming.find(ring); it != ringNaming.end())
    return it->second;
  int64_t S = ringStages(ring);
  std::vector<Operation *> arrivals = arrivalsOn(ring);
  PhaseNaming res;
  // Names grow along each thread's program order, so that the arrivals
  // before the one naming a slot are those naming the earlier slots.
  for (Operation *a1 : arrivals)
    for (Operation *a2 : arrivals) {
      bool grows = provedUnsat([&] {
        Inst i1 = freshInst(a1), i2 = freshInst(a2);
        return std::vector<z3::expr>{
            executesBefore(a1, i1, a2, i2),
            z3::uge(ringSlot(a1, ring, ringStageOf(a1), i1),
                    ringSlot(a2, ring, ringStageOf(a2), i2))};
      });
      if (!grows) {
        res.why = "the slots that " + opDesc(a1) + " and " + opDesc(a2) +
                  " name are not shown to grow along the program";
        return ringNaming[ring] = res;
      }
    }
  for (int64_t d : {int64_t(0), S}) {
    std::string why;
    // The last phase each wait needs is named by an arrival instance.
    for (Operation *user : ring->getUsers()) {
      auto w = dyn_cast<MBarrierWaitOp>(user);
      if (!w || !why.empty())
        continue;
      if (!provedUnsat([&] {
            Inst in = freshInst(w);
            PhaseNeed need = phaseNeed(w, in);
            return std::vector<z3::expr>{
                z3::uge(need.count, bv(1)),
                !namedBy(ring, lastNeeded(need, d, S), in)};
          }))
        why = "the phases the wait at " + locStr(w.getLoc()) +
              " needs are not shown to be named by arrivals";
    }
    // Slots of a stage are named down to the first round: below a named
    // slot x >= d + S, x - S is named too.
    for (Operation *a : arrivals)
      if (why.empty() && !provedUnsat([&] {
            Inst in = freshInst(a);
            z3::expr y = ringSlot(a, ring, ringStageOf(a), in);
            return std::vector<z3::expr>{z3::uge(y, bv(d + S)),
                                         !namedBy(ring, y - bv(S), in)};
          }))
        why = "below a slot that " + opDesc(a) +
              " names, the same stage's slots are not shown to be named "
              "round by round";
    if (why.empty()) {
      res.offset = d;
      res.why.clear();
      break;
    }
    if (res.why.empty())
      res.why = why;
  }
  return ringNaming[ring] = res;
}

std::string KernelVerifier::checkPhasesArrive(MBarrierAllocOp ring,
                                              CheckResult &res) {
  // The slot counters of persistent tile loops (a symbolic step) put
  // products of symbolic values into every query: within the budget the
  // solver shows neither liveness nor a missing arrival there.
  for (Operation *user : ring->getUsers())
    for (auto loop = user->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>())
      if (!matchPattern(loop.getStep(), m_Constant()))
        return "the ring is used in the grid-stride loop at " +
               locStr(loop.getLoc()) +
               ", whose slot counters the liveness proof does not follow";
  PhaseNaming naming = phaseNaming(ring);
  if (!naming.offset) {
    if (confirmMissingArrival(ring, res))
      return "";
    return naming.why;
  }
  int64_t S = ringStages(ring), d = *naming.offset;
  std::vector<MBarrierWaitOp> waits;
  func.walk([&](MBarrierWaitOp w2) { waits.push_back(w2); });
  // Order: for each wait W on the ring, each arrival op A on it and each
  // wait W2 of A's role: no instance of W2 precedes the arrival W needs
  // last unless W's thread makes the arrivals W2 needs before W.
  for (Operation *user : ring->getUsers()) {
    auto w = dyn_cast<MBarrierWaitOp>(user);
    if (!w)
      continue;
    Operation *wRole = w->getParentOfType<RoleOp>();
    for (Operation *a : arrivalsOn(ring)) {
      Operation *aRole = a->getParentOfType<RoleOp>();
      // The waits A's threads may block in before A: those of its role, or
      // every wait when A runs outside roles (on every thread).
      for (MBarrierWaitOp w2 : waits) {
        if (aRole && w2->getParentOfType<RoleOp>() != aRole)
          continue;
        auto ring2 = w2.getBarrier().getDefiningOp<MBarrierAllocOp>();
        PhaseNaming naming2 = phaseNaming(ring2);
        if (!naming2.offset)
          return "on '" + ring2.getName().str() + "', which " + opDesc(a) +
                 " waits behind: " + naming2.why;
        int64_t S2 = ringStages(ring2);
        bool ordered = provedUnsat([&] {
          Inst in = freshInst(w);
          PhaseNeed need = phaseNeed(w, in);
          Inst in2 = freshInst(w2);
          PhaseNeed need2 = phaseNeed(w2, in2);
          z3::expr reached = ctx.bool_val(false);
          for (ArrivalInstance &c :
               arrivalNaming(a, ring, lastNeeded(need, d, S), in))
            reached = reached || (c.valid && executesBefore(w2, in2, a, c.in));
          z3::expr supplied =
              namedBy(ring2, lastNeeded(need2, *naming2.offset, S2), in2, wRole,
                      w, &in);
          return std::vector<z3::expr>{z3::uge(need.count, bv(1)),
                                       z3::uge(need2.count, bv(1)), reached,
                                       !supplied};
        });
        if (!ordered)
          return "that the arrivals the wait at " + locStr(w.getLoc()) +
                 " needs from " + opDesc(a) + " do not wait, through the " +
                 "wait at " + locStr(w2.getLoc()) +
                 ", for what the waiting thread does after it";
      }
    }
  }
  return "";
}

bool KernelVerifier::confirmMissingArrival(MBarrierAllocOp ring,
                                           CheckResult &res) {
  int64_t S = ringStages(ring);
  std::vector<Operation *> arrivals = arrivalsOn(ring);
  for (Operation *user : ring->getUsers()) {
    auto w = dyn_cast<MBarrierWaitOp>(user);
    if (!w)
      continue;
    Query::Mark mk = q->mark();
    Inst in = freshInst(w);
    PhaseNeed need = phaseNeed(w, in);
    std::vector<z3::expr> conds = {z3::uge(need.count, bv(1)),
                                   !namedBy(ring, lastNeeded(need, 0, S), in)};
    std::optional<z3::model> m;
    // A quick look first: most kernels have no such wait, and the
    // witness search is for the kernels that do.
    CheckResult probe = res;
    if (solve(conds, m, -1, kLivenessMs) != z3::sat ||
        !(m = findWitness(probe, conds, in))) {
      q->rollback(mk);
      continue;
    }
    // Confirm by counting: in the model's launch (its arguments and block),
    // fewer than m arrival instances name slots of the stage.
    int64_t stage = uval(*m, need.stage), count = uval(*m, need.count);
    std::vector<int64_t> named;
    z3::check_result r = z3::sat;
    {
      Query C;
      llvm::SaveAndRestore<Query *> onC(q, &C);
      baseCons(C);
      for (auto &[name, v] : paramVars)
        C.cons.push_back(v == bv(uval(*m, v)));
      z3::expr x = var("slot");
      z3::expr any = ctx.bool_val(false);
      for (Operation *a : arrivals) {
        Inst ia = freshInst(a, /*guardOnly=*/true);
        any = any || (ia.guard && ringSlot(a, ring, ringStageOf(a), ia) == x);
      }
      C.cons.push_back(any);
      C.cons.push_back(z3::urem(x, bv(S)) == bv(stage));
      while (r == z3::sat && static_cast<int64_t>(named.size()) < count &&
             named.size() < kCountedArrivals) {
        std::optional<z3::model> m2;
        r = solve({}, m2);
        if (r == z3::sat) {
          named.push_back(uval(*m2, x));
          C.cons.push_back(x != bv(named.back()));
        }
      }
    }
    if (static_cast<int64_t>(named.size()) >= count || r != z3::unsat) {
      q->rollback(mk);
      continue;
    }
    Counterexample cx;
    fillCommon(cx, *m, in);
    std::string list;
    for (int64_t x : named)
      list += (list.empty() ? "" : ", ") + std::to_string(x);
    cx.notes.push_back(
        "the wait at " + locStr(w.getLoc()) + " waits for completion " +
        std::to_string(count) + " of stage " + std::to_string(stage) + " of '" +
        ring.getName().str() + "', but in this launch only " +
        std::to_string(named.size()) + " arrival instance(s) name slots of " +
        "that stage" + (list.empty() ? "" : " (" + list + ")") +
        ": the phase never completes (deadlock)");
    res.status = Status::Violated;
    res.counterexamples = {cx};
    return true;
  }
  return false;
}

} // namespace argus::verify::detail
