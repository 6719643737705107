//===- MemoryModel.cpp - memory ops and synchronisation terms -------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "MemoryModel.h"
#include "SymbolicTerms.h"

#include "argus/Dialect/TagFields.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

bool isWriteOp(Operation *op) {
  return isa<CopyOp, CopyAsyncOp, StoreOp, TmaStoreOp>(op);
}

Value writeDest(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.getDest();
  if (auto c = dyn_cast<CopyAsyncOp>(op))
    return c.getDest();
  if (auto c = dyn_cast<TmaStoreOp>(op))
    return c.getDest();
  return cast<StoreOp>(op).getDest();
}

bool readsThroughAsyncProxy(Operation *op) {
  return isa<TmaStoreOp, MmaAsyncOp>(op);
}

bool isSharedTile(Value v) {
  auto t = dyn_cast<TileType>(v.getType());
  return t && t.getMemorySpace() == MemorySpace::Shared;
}

bool isGlobalTile(Value v) {
  auto t = dyn_cast<TileType>(v.getType());
  return t && t.isMemory() && !isSharedTile(v);
}

Operation *globalViewOf(Value tile) {
  for (Operation *d = tile.getDefiningOp(); d;
       d = d->getOperand(0).getDefiningOp()) {
    if (isa<ViewOp, GatherViewOp, Im2colViewOp>(d))
      return d;
    if (!isa<TagOp, TransposeOp>(d))
      return nullptr;
  }
  return nullptr;
}

Value viewedTensor(Operation *view) {
  if (auto v = dyn_cast<ViewOp>(view))
    return v.getTensor();
  if (auto v = dyn_cast<Im2colViewOp>(view))
    return v.getTensor();
  return cast<GatherViewOp>(view).getTensor();
}

std::string viewName(Operation *view) {
  if (auto v = dyn_cast<ViewOp>(view))
    return v.getName().str();
  if (auto v = dyn_cast<Im2colViewOp>(view))
    return v.getName().str();
  return cast<GatherViewOp>(view).getName().str();
}

std::optional<GatherSource> gatherSource(GatherViewOp gather) {
  Value v = gather.getIndices();
  while (Operation *d = v.getDefiningOp()) {
    if (!isa<TagOp, ConvertOp, ConvertLayoutOp>(d))
      break;
    v = d->getOperand(0);
  }
  auto load = v.getDefiningOp<LoadOp>();
  if (!load)
    return std::nullopt;
  Value src = load.getSource();
  while (auto tag = src.getDefiningOp<TagOp>())
    src = tag.getInput();
  auto view = src.getDefiningOp<ViewOp>();
  // A clipped view reads zeros past its bound: entries that are not the
  // tensor's.
  if (!view || view.getClipped() || view.getOffsets().size() != 1)
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(view.getTensor());
  auto fn = gather->getParentOfType<FunctionOpInterface>();
  if (!arg || !fn || arg.getOwner()->getParentOp() != fn.getOperation())
    return std::nullopt;
  GatherSource s{view, {}};
  fn->walk([&](AssumeIndicesOp a) {
    if (a.getTensor() == view.getTensor())
      s.declared.push_back(a);
  });
  return s;
}

std::string gatherRowsOrigin(const std::optional<GatherSource> &src) {
  if (!src)
    return "indices not loaded from a view of a kernel argument";
  ViewOp view = src->indexView; // the op's accessors are not const
  return "entries of '" + view.getName().str() + "'";
}

bool readsRoot(Operation *p, Value root) {
  if (isa<LoadOp, CopyOp, CopyAsyncOp, TmaStoreOp>(p))
    return isSharedTile(p->getOperand(0)) &&
           getMemoryRoot(p->getOperand(0)) == root;
  if (isa<MmaOp, MmaAsyncOp>(p))
    for (Value v : {p->getOperand(0), p->getOperand(1)})
      if (isSharedTile(v) && getMemoryRoot(v) == root)
        return true;
  return false;
}

std::optional<L::Layout> accessLayout(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.getThreads().getLayout().layout;
  if (auto c = dyn_cast<CopyAsyncOp>(op))
    return c.getThreads().getLayout().layout;
  if (auto ld = dyn_cast<LoadOp>(op))
    return registerLayout(cast<TileType>(ld.getResult().getType()));
  if (auto st = dyn_cast<StoreOp>(op))
    return registerLayout(cast<TileType>(st.getValue().getType()));
  if (isa<TmaLoadOp, TmaStoreOp>(op)) {
    // One elected thread issues the copy of the whole tile: its "slots"
    // are the tile's elements.
    int64_t n = cast<TileType>(op->getOperand(0).getType()).getNumElements();
    return L::Layout(L::IntTuple::tuple({1, n}), L::IntTuple::tuple({0, 1}));
  }
  return std::nullopt;
}

z3::expr anyBarrier(z3::context &ctx, ArrayRef<SyncEvent> events, size_t from,
                    bool blockWideOnly) {
  z3::expr b = ctx.bool_val(false);
  for (size_t j = from; j < events.size(); ++j)
    if (events[j].kind == SyncEvent::Barrier &&
        !(blockWideOnly && events[j].roleScoped))
      b = b || events[j].guard;
  return b;
}

z3::expr barrierOrders(z3::context &ctx, const Candidate &cd,
                       const z3::expr &ct, size_t from) {
  if (!cd.accessRole)
    return anyBarrier(ctx, cd.events, from);
  // A role's barrier orders a top-level access of one of its own threads.
  auto [first, n] = *cd.accessRole;
  z3::expr inRole = z3::uge(ct, ctx.bv_val(first, kWidth)) &&
                    z3::ult(ct, ctx.bv_val(first + n, kWidth));
  return anyBarrier(ctx, cd.events, from, /*blockWideOnly=*/true) ||
         (inRole && anyBarrier(ctx, cd.events, from));
}

z3::expr sameThread(z3::context &ctx, const Candidate &cd, const z3::expr &ct,
                    const z3::expr &at) {
  if (!cd.accessRole)
    return ct == at;
  return ct == at + ctx.bv_val(cd.accessRole->first, kWidth);
}

/// For each event index j: whether the candidate's asynchronous access has
/// retired by a wait at or before j (all true for synchronous accesses).
std::optional<AsyncGroup> asyncGroupOf(Operation *op) {
  if (isa<CopyAsyncOp>(op))
    return AsyncGroup{SyncEvent::Commit, SyncEvent::Wait, false};
  if (isa<MmaAsyncOp>(op))
    return AsyncGroup{SyncEvent::WgmmaCommit, SyncEvent::WgmmaWait, false};
  if (isa<TmaStoreOp>(op))
    return AsyncGroup{SyncEvent::BulkCommit, SyncEvent::BulkWait, true};
  return std::nullopt;
}

static std::vector<z3::expr> retiredBy(z3::context &ctx, const Candidate &cd) {
  size_t n = cd.events.size();
  // Asynchronous accesses last until their group retires.
  std::optional<AsyncGroup> group = asyncGroupOf(cd.op);
  if (!group)
    return std::vector<z3::expr>(n + 1, ctx.bool_val(true));
  auto [commitKind, waitKind, selfCommits] = *group;
  std::vector<z3::expr> out(n + 1, ctx.bool_val(false));
  // The first commit after the access (or the access itself) closes its
  // group; a later wait N retires it once N more groups were committed.
  size_t i0 = n;
  if (!selfCommits)
    for (size_t j = 0; j < n; ++j)
      if (cd.events[j].kind == commitKind) {
        i0 = j;
        break;
      }
  if (!selfCommits && i0 == n)
    return out;
  z3::expr closed = selfCommits
                        ? ctx.bool_val(true)
                        : z3::implies(cd.inst.guard, cd.events[i0].guard);
  // The commits since the access: those whose guard folds to true are
  // counted as a number, the others kept as conditions. "At least N of
  // them ran" is then a disjunction for N = 1 and a sum no wider than the
  // count needs otherwise: the same condition as a 24-bit sum of
  // ite(guard, 1, 0) (which cannot wrap either), without the adder chain
  // the SAT solver would have to see through (a stage-release query of
  // the Hopper GEMM had 57 such chains of up to 20 summands).
  int64_t certain = 0;
  std::vector<z3::expr> maybe;
  auto atLeast = [&](int64_t k) -> z3::expr {
    k -= certain;
    if (k <= 0)
      return ctx.bool_val(true);
    if (k > static_cast<int64_t>(maybe.size()))
      return ctx.bool_val(false);
    if (k == 1) {
      z3::expr any = ctx.bool_val(false);
      for (const z3::expr &g : maybe)
        any = any || g;
      return any;
    }
    unsigned w = 1;
    while ((uint64_t(1) << w) <= maybe.size())
      ++w;
    z3::expr sum = ctx.bv_val(0, w);
    for (const z3::expr &g : maybe)
      sum = sum + z3::ite(g, ctx.bv_val(1, w), ctx.bv_val(0, w));
    return z3::uge(sum, ctx.bv_val(k, w));
  };
  z3::expr retired = ctx.bool_val(false);
  for (size_t j = selfCommits ? 0 : i0 + 1; j < n; ++j) {
    const SyncEvent &e = cd.events[j];
    if (e.kind == commitKind) {
      z3::expr g = e.guard.simplify();
      if (g.is_true())
        ++certain;
      else if (!g.is_false())
        maybe.push_back(e.guard);
    } else if (e.kind == waitKind) {
      retired = retired || (closed && e.guard && atLeast(e.n));
    }
    out[j] = retired;
  }
  out[n] = retired;
  return out;
}

z3::expr unsynchronised(z3::context &ctx, const Candidate &cd,
                        const z3::expr &wt, const z3::expr &tr) {
  if (!asyncGroupOf(cd.op))
    return !sameThread(ctx, cd, wt, tr) && !barrierOrders(ctx, cd, wt);
  std::vector<z3::expr> retired = retiredBy(ctx, cd);
  z3::expr visible = ctx.bool_val(false);
  for (size_t j = 0; j < cd.events.size(); ++j)
    visible = visible || (retired[j] && barrierOrders(ctx, cd, wt, j + 1));
  return !retired.back() || (!sameThread(ctx, cd, wt, tr) && !visible);
}

z3::expr notFencedForAsyncProxy(z3::context &ctx, const Candidate &cd,
                                const z3::expr &wt, const z3::expr &tr) {
  // The write must be complete (retired, for cp.async), then fenced by its
  // thread (every thread of the role runs the fence), then ordered before
  // the reading thread by a barrier unless the writer issues the read.
  std::vector<z3::expr> retired = retiredBy(ctx, cd);
  z3::expr fenced = ctx.bool_val(false);
  for (size_t j = 0; j < cd.events.size(); ++j)
    if (cd.events[j].kind == SyncEvent::ProxyFence)
      fenced =
          fenced ||
          ((j ? retired[j - 1] : ctx.bool_val(!isa<CopyAsyncOp>(cd.op))) &&
           cd.events[j].guard &&
           (sameThread(ctx, cd, wt, tr) || barrierOrders(ctx, cd, wt, j + 1)));
  return !fenced;
}

bool sameStageLayout(const MemView &a, const MemView &b) {
  auto identity = [](const std::vector<unsigned> &p) {
    for (unsigned k = 0; k < p.size(); ++k)
      if (p[k] != k)
        return false;
    return true;
  };
  return a.shared && b.shared && a.root == b.root && a.stage && b.stage &&
         a.cosz == b.cosz && a.cosz > 0 && (a.cosz & (a.cosz - 1)) == 0 &&
         a.shape == b.shape && a.layout == b.layout && identity(a.perm) &&
         identity(b.perm);
}

} // namespace argus::verify::detail
