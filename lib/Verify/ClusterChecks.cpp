//===- ClusterChecks.cpp - thread-block clusters and TMA multicast --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// In a kernel with a thread-block cluster, a multicast bulk copy fills the
// same stage in every block of the cluster, each block issuing a share of
// the boxes, and a cluster-wide arrive counts on the barrier of every
// block. The verifier reasons about one block and reads the others' effects
// off the same code run with their block ids (docs/Verifier.md, "Clusters"):
//
//   cluster-lockstep  every block of the cluster runs the op at the same
//                     iteration numbers, for the same slot (and, for a
//                     copy, the same stage). Then each block's phase of
//                     slot j receives every block's boxes of slot j (so the
//                     tx-byte count of one block's copy is each block's),
//                     and n blocks' arrivals (mbarrier-arrivals counts n
//                     times the arriving threads);
//   tags              an element of a multicast stage holds what the
//                     issuer of its box read: its source view's tags in
//                     that block at the same iterations, so a source that
//                     differs between the blocks reaches the assertions;
//   tma-slot          a multicast copy refills the stage in every block: the
//                     ring it waits on for the release is released by
//                     cluster-wide arrives (else a block's consumers may
//                     still read what another block's copy overwrites).
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

std::map<unsigned, z3::expr> KernelVerifier::peerRanks(const z3::expr &rank) {
  std::map<unsigned, z3::expr> ranks;
  z3::expr rest = rank;
  for (unsigned d = 0; d < 3; ++d) {
    z3::expr within = cluster[d] == 1 ? bv(0) : z3::urem(rest, bv(cluster[d]));
    rest = cluster[d] == 1 ? rest : z3::udiv(rest, bv(cluster[d]));
    if (params.count(blockIdKey(d)))
      ranks.emplace(d, within);
  }
  return ranks;
}

KernelVerifier::PeerBlock::PeerBlock(KernelVerifier &v,
                                     const std::map<unsigned, z3::expr> &ranks)
    : v(v) {
  if (!v.renamedParams.empty())
    unsupported("another block's instance inside another block's");
  for (Operation &op : v.func.getBody().front())
    if (auto ld = dyn_cast<memref::LoadOp>(op);
        ld && v.params.count(ld.getResult().getAsOpaquePointer()))
      unsupported("a value loaded at the kernel's entry may differ between "
                  "the blocks of a cluster (not modelled)");
  // The same cluster id, another rank.
  for (const auto &[d, r] : ranks) {
    if (!v.clusteredDim(d))
      continue;
    v.renamedParams.emplace(blockIdKey(d), v.peerBlockId(d, r));
    v.renamedParams.emplace(clusterRankKey(d), r);
  }
}

std::vector<KernelVerifier::Iteration>
KernelVerifier::iterationNumbers(Operation *op, const Inst &in) {
  std::vector<Iteration> numbers;
  for (Operation *p = op->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      continue;
    z3::expr lb = bv(0), ub = bv(0), step = bv(1);
    loopRange(loop, in.without(loop), lb, ub, step);
    std::optional<z3::expr> iv = in.lookup(loop);
    if (!iv)
      unsupported("an instance without the iteration of its loop");
    numbers.insert(numbers.begin(), Iteration{*iv, lb, step});
  }
  return numbers;
}

Inst KernelVerifier::sameIterations(Operation *op,
                                    const std::vector<Iteration> &numbers) {
  Inst out(ctx.bool_val(true));
  std::vector<Operation *> parents;
  for (Operation *p = op->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp())
    parents.insert(parents.begin(), p);
  size_t k = 0;
  for (size_t i = 0; i < parents.size(); ++i) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parents[i])) {
      Operation *child = i + 1 < parents.size() ? parents[i + 1] : op;
      z3::expr cond = evalBool(ifOp.getCondition(), out);
      bool inThen = ifOp.getThenRegion().isAncestor(child->getParentRegion());
      out.guard = out.guard && (inThen ? cond : !cond);
      continue;
    }
    if (isa<RoleOp>(parents[i]))
      continue;
    auto loop = dyn_cast<scf::ForOp>(parents[i]);
    if (!loop || k >= numbers.size())
      unsupported("op nested in '" + parents[i]->getName().getStringRef() +
                  "' (scf.for, scf.if and argus.role are modelled)");
    z3::expr lb = bv(0), ub = bv(0), step = bv(1);
    loopRange(loop, out, lb, ub, step);
    const Iteration &at = numbers[k++];
    // The same range start and step (the cluster id's, a constant): the
    // same induction variable, without the division.
    if (z3::eq(lb, at.lb) && z3::eq(step, at.step)) {
      out.guard = out.guard && z3::ult(at.iv, ub);
      out = out.with(loop, at.iv, out.guard);
      continue;
    }
    z3::expr n = z3::udiv(at.iv - at.lb, at.step);
    z3::expr iv = lb + n * step;
    out.guard = out.guard && z3::bvmul_no_overflow(n, step, false) &&
                z3::bvadd_no_overflow(lb, n * step, false) && z3::ult(iv, ub);
    out = out.with(loop, iv, out.guard);
  }
  return out;
}

/// The ring, stage operand and (for a copy) destination stage op of a
/// cluster-wide op.
static std::tuple<Value, Value, StageOp> clusterOpParts(Operation *op) {
  if (auto t = dyn_cast<TmaLoadOp>(op))
    return {t.getBarrier(), t.getStage(), t.getDest().getDefiningOp<StageOp>()};
  auto a = cast<MBarrierArriveOp>(op);
  return {a.getBarrier(), a.getStage(), StageOp()};
}

CheckResult KernelVerifier::checkClusterLockstep(Operation *op) {
  CheckResult res = newCheck("cluster-lockstep", op, op);
  bool copy = isa<TmaLoadOp>(op);
  res.predicate = std::string("every block of the cluster runs this ") +
                  (copy ? "multicast copy" : "cluster-wide arrive") +
                  " at the same iterations, for the same slot" +
                  (copy ? " and stage" : "");
  runCheck({&res}, [&](Query &Q) {
    auto [ring, stageOperand, stageOp] = clusterOpParts(op);
    if (copy && !stageOp)
      unsupported("the destination of " + opDesc(op) +
                  " is not a stage of an argus.alloc buffer");
    Inst in = freshInst(op);
    z3::expr j = ringSlot(op, ring, stageOperand, in);
    z3::expr st = copy ? evalIndex(stageOp.getIndex(), in) : bv(0);
    std::vector<Iteration> numbers = iterationNumbers(op, in);
    z3::expr rank = var("peer_rank");
    Q.cons.push_back(z3::ult(rank, bv(clusterSize())));
    std::map<unsigned, z3::expr> ranks = peerRanks(rank);
    std::optional<Inst> peer;
    std::optional<z3::expr> jp, stp;
    {
      PeerBlock g(*this, ranks);
      peer = sameIterations(op, numbers);
      jp = ringSlot(op, ring, stageOperand, *peer);
      stp = copy ? evalIndex(stageOp.getIndex(), *peer) : bv(0);
    }
    z3::expr bad = !peer->guard || *jp != j || *stp != st;
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m)
      return;
    Counterexample cx;
    fillCommon(cx, *m, in);
    std::string peerName = "the block of rank " +
                           std::to_string(uval(*m, rank)) + " in its cluster (";
    for (auto &[d, r] : ranks)
      peerName += std::string(d ? ", " : "") + "block_id." + "xyz"[d] + " = " +
                  std::to_string(uval(*m, peerBlockId(d, r)));
    peerName += ")";
    std::string what = copy ? "its boxes" : "its arrivals";
    if (!m->eval(peer->guard, true).is_true())
      cx.notes.push_back(
          "this block runs " + opDesc(op) + " for slot " +
          std::to_string(uval(*m, j)) + " but " + peerName +
          " does not run it at the same iterations: " + what +
          " for that phase never come (deadlock), or come in another one");
    else
      cx.notes.push_back(
          "this block runs " + opDesc(op) + " for slot " +
          std::to_string(uval(*m, j)) +
          (copy ? " into stage " + std::to_string(uval(*m, st)) : "") +
          " while " + peerName + " runs it at the same iterations for slot " +
          std::to_string(uval(*m, *jp)) +
          (copy ? " into stage " + std::to_string(uval(*m, *stp)) : "") + ": " +
          what + " land in another phase than this block's");
    res.counterexamples.push_back(cx);
  });
  return res;
}

Tags KernelVerifier::multicastTags(TmaLoadOp fill,
                                   const std::vector<z3::expr> &cs,
                                   const Inst &wi, const z3::expr &guard) {
  // Boxes in row-major order over the tile; box b comes from rank b % n.
  ArrayRef<int64_t> box = fill.getMap().getType().getBox();
  ArrayRef<int64_t> shape = fill.getDest().getType().getShape();
  z3::expr index = bv(0);
  for (size_t d = 0; d < shape.size(); ++d)
    index = index * bv(shape[d] / box[d]) + z3::udiv(cs[d], bv(box[d]));
  z3::expr issuer = z3::urem(index, bv(clusterSize()));
  std::vector<Iteration> numbers = iterationNumbers(fill, wi);
  PeerBlock g(*this, peerRanks(issuer));
  Inst at = sameIterations(fill, numbers);
  // cluster-lockstep proves that the issuer runs the copy there.
  assume(guard, at.guard);
  return memTags(fill.getSource(), cs, at, fill, std::nullopt);
}

} // namespace argus::verify::detail
