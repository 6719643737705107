//===- BulkCopyReads.cpp - reads of stages that bulk tensor copies fill
//----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A consumer role reads a stage that a producer role's bulk copies filled.
// Program order relates nothing across roles; the mbarrier protocol does
// (MBarrierProtocol.cpp proves it: the last wait before the read completed
// slot j, whose copies write stage j % S, and nobody overwrites the stage
// before the reader releases it). So the writer of what the read sees is
// the copy instance of slot j. The verifier names it by a witness: the
// producer's loops run at the reader's iteration numbers (roles with the
// same loop structure as the loops around the consumer's wait; a read in
// deeper loops, such as a Q tile loaded once and read at every key tile,
// sees the same slot at each of its inner iterations). `unwritten-read` proves
// that the witness exists and fills slot j for every read (else unknown, never
// violated: other witnesses are not searched); `mbarrier-arrivals` proves that
// only one instance announces each slot. Under both, the witness is the writer,
// and its source view gives the element's tags.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TileLayouts.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

TmaLoadOp KernelVerifier::bulkFiller(Value root, Operation *reader) {
  TmaLoadOp fill;
  unsigned n = 0;
  func.walk([&](TmaLoadOp t) {
    if (getMemoryRoot(t.getDest()) == root) {
      fill = t;
      ++n;
    }
  });
  if (n != 1)
    unsupported("several bulk copies fill the memory read at " +
                opDesc(reader));
  bool other = false;
  func.walk([&](Operation *op) {
    if (isWriteOp(op) && getMemoryRoot(writeDest(op)) == root)
      other = true;
  });
  if (other)
    unsupported("memory read at " + opDesc(reader) +
                " is written by bulk copies and by ordinary writes");
  if (!reader->getParentOfType<RoleOp>() ||
      reader->getParentOfType<RoleOp>() == fill->getParentOfType<RoleOp>())
    unsupported("the bulk copies filling the memory read at " + opDesc(reader) +
                " are not in another warp role: only the producer / "
                "consumer protocol across roles is modelled");
  return fill;
}

Tags KernelVerifier::readBulkFilled(const MemView &mv,
                                    const std::vector<z3::expr> &c,
                                    const Inst &in, Operation *reader,
                                    bool wantTags) {
  TmaLoadOp fill = bulkFiller(mv.root, reader);
  Value ring = fill.getBarrier();
  MBarrierWaitOp w = lastWaitOn(reader, ring.getDefiningOp());
  if (!w)
    unsupported("no wait on the ring of the bulk copies precedes " +
                opDesc(reader) + " (see async-read-order)");
  z3::expr j = ringSlot(w, ring, w.getStage(), in);
  // The copy instance of slot j: the producer's iteration with the reader's
  // iteration numbers, which fills slot j (checkBulkWritten proves it) and
  // is the only instance that does (mbarrier-arrivals: one announcement
  // per slot). Assumed here, proved there.
  z3::expr fits = ctx.bool_val(true);
  Inst wi = bulkWitness(fill, w, in, fits);
  z3::expr jw = ringSlot(fill, ring, fill.getStage(), wi);
  assume(in.guard, fits && jw == j);
  MemView wv = resolve(fill.getDest(), wi);
  // The read may view the stage transposed (K^T of a key tile): element c
  // of the read is element cs (root order) of the stage the copy filled,
  // at the same address for every element (checked concretely).
  std::vector<z3::expr> cs;
  std::vector<int64_t> rootShape;
  for (unsigned k : mv.perm) {
    cs.push_back(c[k]);
    rootShape.push_back(mv.shape[k]);
  }
  if (!sameAddresses(mv, wv, rootShape))
    unsupported("the read at " + opDesc(reader) +
                " views the stage through another layout than the bulk "
                "copy that fills it");
  ReadRec rec{reader,
              mv.name,
              c,
              *mv.stage,
              *mv.base + memOffset(mv.layout, mv.shape, c, in.guard),
              // Defined by the witness copy where it executes; vacuously
              // where it does not (see readShared).
              ctx.bool_val(true),
              ctx.bool_val(false),
              ctx.bool_val(false),
              {}};
  ReadRec::Cand rc{fill, false, in.guard, cs, bv(0), bv(0), wi.ivs, {}, ""};
  MemView sv = resolve(fill.getSource(), wi);
  rc.srcName = sv.name;
  if (!sv.shared && !sv.gather)
    for (size_t k = 0; k < sv.offsets.size(); ++k)
      rc.srcGlobal.push_back(sv.offsets[k] + cs[sv.perm[k]]);
  rec.cands.push_back(rc);
  q->reads.push_back(rec);
  if (!wantTags)
    return {};
  // The copy moves tile element c of its source view to tile element c of
  // the stage (the placement verifyTmaPlacement checked); a multicast box
  // comes from the block that issues it.
  if (fill.getMulticast() && clusterSize() > 1)
    return multicastTags(fill, cs, wi, in.guard);
  return memTags(fill.getSource(), cs, wi, fill, std::nullopt);
}

/// Whether the read view `mv` (tile coordinates permuted by mv.perm from the
/// root's) and the copy's view `wv` of the root (identity order, shape
/// `rootShape`) put every element at the same address.
bool KernelVerifier::sameAddresses(const MemView &mv, const MemView &wv,
                                   const std::vector<int64_t> &rootShape) {
  if (wv.shape != rootShape)
    return false;
  for (size_t k = 0; k < wv.perm.size(); ++k)
    if (wv.perm[k] != k)
      return false;
  if (wv.layout.str() == mv.layout.str() && wv.shape == mv.shape)
    return true;
  int64_t n = 1;
  for (int64_t d : rootShape)
    n *= d;
  if (n > (int64_t(1) << 20) || mv.shape.size() != rootShape.size())
    return false;
  for (size_t k = 0; k < rootShape.size(); ++k)
    if (mv.shape[mv.perm[k]] != rootShape[k])
      return false;
  // Both views' offsets as tables; element rc of the root is element tc of
  // the read view (tc[perm[k]] = rc[k]).
  std::vector<int64_t> read = memoryTileOffsets(mv.layout, mv.shape);
  std::vector<int64_t> written = memoryTileOffsets(wv.layout, wv.shape);
  std::vector<int64_t> rc(rootShape.size(), 0), tc(rootShape.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < rc.size(); ++k)
      tc[mv.perm[k]] = rc[k];
    int64_t t = 0;
    for (size_t k = 0; k < tc.size(); ++k)
      t = t * mv.shape[k] + tc[k];
    if (read[t] != written[i])
      return false;
    nextRowMajor(rc, rootShape);
  }
  return true;
}

Inst KernelVerifier::bulkWitness(TmaLoadOp fill, Operation *wait,
                                 const Inst &in, z3::expr &fits) {
  // The wait sits in the reader's block or an enclosing one: its loops are
  // the outermost of the reader's, and name the slot the read sees.
  size_t waitDepth = 0;
  for (Operation *p = wait->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp())
    if (isa<scf::ForOp>(p))
      ++waitDepth;
  if (waitDepth > in.ivs.size())
    unsupported("the wait before the read sits in loops the read is not in");
  std::vector<scf::ForOp> loops;
  for (Operation *p = fill->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp()) {
    if (isa<RoleOp>(p))
      continue;
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      unsupported("the bulk copy sits in '" + p->getName().getStringRef() +
                  "': the witness runs plain loop nests only");
    loops.insert(loops.begin(), loop);
  }
  // Candidate 1: the producer's loops at the iteration numbers of the loops
  // around the wait (roles with the same loop structure).
  std::optional<Inst> numbered;
  z3::expr fitsNumbered = ctx.bool_val(true);
  if (loops.size() == waitDepth) {
    Inst wi(ctx.bool_val(true));
    for (size_t k = 0; k < loops.size(); ++k) {
      auto rloop = cast<scf::ForOp>(in.ivs[k].first);
      // Loops over the same range (the same SSA values, else the same terms:
      // each role may read the block id itself): the same induction
      // variable. The bounds are evaluated only when the values differ.
      bool sameRange = rloop.getLowerBound() == loops[k].getLowerBound() &&
                       rloop.getUpperBound() == loops[k].getUpperBound() &&
                       rloop.getStep() == loops[k].getStep();
      z3::expr rlb = bv(0), rub = bv(0), rstep = bv(1);
      z3::expr lb = bv(0), ub = bv(0), step = bv(1);
      if (!sameRange) {
        loopRange(rloop, in.without(rloop), rlb, rub, rstep);
        loopRange(loops[k], wi, lb, ub, step);
        sameRange = z3::eq(rlb, lb) && z3::eq(rub, ub) && z3::eq(rstep, step);
      }
      if (sameRange) {
        wi = wi.with(loops[k], in.ivs[k].second, wi.guard);
        continue;
      }
      z3::expr n = z3::udiv(in.ivs[k].second - rlb, rstep);
      z3::expr iv = lb + n * step;
      fitsNumbered = fitsNumbered && z3::bvmul_no_overflow(n, step, false) &&
                     z3::bvadd_no_overflow(lb, n * step, false) &&
                     z3::ult(iv, ub);
      wi = wi.with(loops[k], iv, wi.guard);
    }
    numbered = wi;
  }
  if (loops.size() != 1) {
    if (!numbered)
      unsupported("the producer's loop nest and the loops around the "
                  "consumer's wait differ in depth: no witness by iteration "
                  "numbers");
    fits = fitsNumbered;
    return *numbered;
  }
  // Candidate 2 (a single producer loop whose slot advances by one per
  // iteration): the iteration that fills the slot the wait observed,
  // lb + (j - slot(lb)) * step. A skewed consumer (P V of key tile j - 1
  // at iteration j) and a read after the loop find their copy so.
  Value ring = fill.getBarrier();
  auto w = cast<MBarrierWaitOp>(wait);
  z3::expr j = ringSlot(w, ring, w.getStage(), in);
  z3::expr lb = bv(0), ub = bv(0), step = bv(1);
  loopRange(loops[0], Inst(ctx.bool_val(true)), lb, ub, step);
  Inst first = Inst(ctx.bool_val(true)).with(loops[0], lb, ctx.bool_val(true));
  z3::expr j0 = ringSlot(fill, ring, fill.getStage(), first);
  z3::expr n = j - j0;
  z3::expr ivInv = lb + n * step;
  z3::expr fitsInv = z3::uge(j, j0) && z3::bvmul_no_overflow(n, step, false) &&
                     z3::bvadd_no_overflow(lb, n * step, false) &&
                     z3::ult(ivInv, ub);
  if (!numbered) {
    fits = fitsInv;
    return Inst(ctx.bool_val(true)).with(loops[0], ivInv, ctx.bool_val(true));
  }
  // Both: the numbered one where it fills slot j, else the inverted one.
  z3::expr jNum = ringSlot(fill, ring, fill.getStage(), *numbered);
  z3::expr useNum = fitsNumbered && jNum == j;
  z3::expr iv = z3::ite(useNum, *numbered->lookup(loops[0]), ivInv);
  fits = z3::ite(useNum, fitsNumbered, fitsInv);
  return Inst(ctx.bool_val(true)).with(loops[0], iv, ctx.bool_val(true));
}

CheckResult KernelVerifier::checkBulkWritten(Operation *reader, Value source) {
  CheckResult res = newCheck("unwritten-read", reader, reader);
  res.predicate = "the slot whose stage is read is filled by a bulk copy of "
                  "the producer";
  runCheck({&res}, [&](Query &Q) {
    TmaLoadOp fill = bulkFiller(getMemoryRoot(source), reader);
    Value ring = fill.getBarrier();
    MBarrierWaitOp w = lastWaitOn(reader, ring.getDefiningOp());
    if (!w)
      unsupported("no wait on the ring of the bulk copies precedes the read "
                  "(see async-read-order)");
    Inst in = freshInst(reader);
    z3::expr j = ringSlot(w, ring, w.getStage(), in);
    z3::expr fits = ctx.bool_val(true);
    Inst wi = bulkWitness(fill, w, in, fits);
    z3::expr jw = ringSlot(fill, ring, fill.getStage(), wi);
    std::optional<z3::model> m;
    z3::check_result r = solve({in.guard, !(fits && jw == j)}, m);
    if (r == z3::unsat) {
      res.status = Status::Proved;
      return;
    }
    res.status = Status::Unknown;
    res.reason = r == z3::unknown
                     ? "solver returned unknown (timeout?)"
                     : "the producer's iteration with the reader's iteration "
                       "numbers does not fill the slot read (other witnesses "
                       "are not searched)";
  });
  return res;
}

} // namespace argus::verify::detail
