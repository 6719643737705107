//===- AlignmentChecks.cpp - vector accesses of global tiles are aligned --===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The lowering moves a thread's consecutive slots that cover consecutive
// elements of a global tile's contiguous row as one vector (up to 16 bytes,
// TileAccess.cpp's vectorWidth), and the hardware faults on a vector whose
// address is not a multiple of its size. Whether it is depends on the view
// offsets and on the tensor's row pitch, i.e. on the kernel's arguments:
// an fp32 GEMM with K = 517 reads rows of A 2068 bytes apart, so no 16-byte
// vector of row 1 is aligned. The implicit check `misaligned-vector`: for
// every block, iteration and thread, the first element of each vector has a
// linear offset in its tensor (row-major over the tensor's sizes) that is a
// multiple of the vector width (the base pointer's alignment is the
// runtime's: its allocations are 256-byte aligned). NVIDIA targets only:
// on gfx942 a misaligned global vector is slower, not a fault.
//
// The width checked is the widest the global tile's access layout allows
// (each group of n consecutive slots of a thread covers n consecutive
// elements of the tensor's last dimension, the first n-aligned in the
// tile), an upper bound of the lowering's, which can only be narrower (the
// other tile of a copy may limit it); a multiple of the wider width is a
// multiple of every narrower power of two.
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

/// The widest power-of-two vector (elements, at most 16 bytes) of access
/// layout `l` over a tile of `shape` along tile dimension `dim`.
static int64_t vectorWidthAlong(const L::Layout &l,
                                const std::vector<int64_t> &shape, unsigned dim,
                                int64_t elemBytes) {
  int64_t threads = l.mode(0).size(), slots = l.mode(1).size();
  for (int64_t n = std::max<int64_t>(1, 16 / elemBytes); n > 1; n /= 2) {
    if (slots % n)
      continue;
    bool ok = true;
    for (int64_t t = 0; ok && t < threads; ++t)
      for (int64_t g = 0; ok && g < slots; g += n) {
        std::vector<int64_t> c0 = delinConcrete(l(t + threads * g), shape);
        if (c0[dim] % n)
          ok = false;
        for (int64_t j = 1; ok && j < n; ++j) {
          std::vector<int64_t> c =
              delinConcrete(l(t + threads * (g + j)), shape);
          c0[dim] += 1;
          ok = c == c0;
        }
      }
    if (ok)
      return n;
  }
  return 1;
}

void KernelVerifier::checkAlignment(std::vector<CheckResult> &out) {
  // gfx942 (HSA's unaligned access mode) splits or tolerates misaligned
  // global vectors; NVIDIA faults on them.
  if (!nvidia)
    return;
  func.walk([&](Operation *op) {
    // TMA copies have the tensor map's own rules (checked when encoded).
    if (!isa<LoadOp, CopyOp, CopyAsyncOp, StoreOp>(op))
      return;
    for (Value v : op->getOperands())
      if (isGlobalTile(v) && isa_and_nonnull<ViewOp>(globalViewOf(v)))
        if (std::optional<CheckResult> r = checkAccessAlignment(op, v))
          out.push_back(std::move(*r));
  });
}

std::optional<CheckResult> KernelVerifier::checkAccessAlignment(Operation *op,
                                                                Value global) {
  std::optional<L::Layout> l = accessLayout(op);
  auto ty = cast<TileType>(global.getType());
  if (!l)
    return std::nullopt; // out-of-bounds reports the missing layout
  std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
  auto view = cast<ViewOp>(globalViewOf(global));
  auto mt = cast<MemRefType>(view.getTensor().getType());
  int64_t rank = mt.getRank();
  int64_t elemBytes =
      std::max<int64_t>(1, ty.getElementType().getIntOrFloatBitWidth() / 8);
  CheckResult res = newCheck("misaligned-vector", op, op);
  int64_t n = 0;
  bool isDest = isWriteOp(op) && writeDest(op) == global;
  runCheck({&res}, [&](Query &Q) {
    Inst in = freshInst(op);
    MemView mv = resolve(global, in);
    if (mv.offsets.size() != static_cast<size_t>(rank) ||
        mv.perm.size() != static_cast<size_t>(rank))
      unsupported("a view whose rank differs from its tensor's");
    unsigned dim = mv.perm[rank - 1]; // the tile dimension along the rows
    n = vectorWidthAlong(*l, shape, dim, elemBytes);
    res.predicate = "every " + std::to_string(n * elemBytes) +
                    "-byte vector this access moves starts at a multiple of " +
                    std::to_string(n) + " elements of its tensor";
    if (n == 1) {
      res.status = Status::Proved;
      return;
    }
    unsigned bits = llvm::Log2_64(n);
    z3::expr t = rangeVar("thread", l->mode(0).size());
    z3::expr s = rangeVar("slot", l->mode(1).size());
    Q.cons.push_back(z3::urem(s, bv(n)) == bv(0));
    std::vector<z3::expr> c = delin(tvLin(*l, t, s, ctx.bool_val(true)), shape);
    // Vectors that start inside the tensor; of a clipped view only those
    // wholly inside (the lowering moves the others element by element).
    std::vector<z3::expr> g, size;
    for (int64_t k = 0; k < rank; ++k) {
      g.push_back(mv.offsets[k] + c[mv.perm[k]]);
      size.push_back(tensorSize(view.getTensor(), k));
      Q.cons.push_back(z3::ult(g[k], size[k]));
    }
    if (view.getClipped())
      Q.cons.push_back(z3::ult(g[rank - 1] + bv(n - 1), size[rank - 1]));
    // The linear offset modulo n: the low bits of each factor suffice.
    auto low = [&](const z3::expr &x) { return x.extract(bits - 1, 0); };
    z3::expr lin = low(g[0]);
    for (int64_t k = 1; k < rank; ++k)
      lin = lin * low(size[k]) + low(g[k]);
    z3::expr bad = lin != ctx.bv_val(0, bits);
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m)
      return;
    int64_t tt = uval(*m, t), ss = uval(*m, s);
    std::vector<int64_t> tc = tileCoordOf(*l, tt, ss, shape);
    std::vector<int64_t> gc(rank), sz(rank);
    int64_t linear = 0;
    for (int64_t k = 0; k < rank; ++k) {
      gc[k] = uval(*m, mv.offsets[k]) + tc[mv.perm[k]];
      sz[k] = uval(*m, size[k]);
      linear = linear * sz[k] + gc[k];
    }
    if (linear % n == 0) {
      res.status = Status::Unknown;
      res.reason = "counterexample replay disagrees: the vector is aligned "
                   "concretely";
      return;
    }
    Counterexample cx;
    fillCommon(cx, *m, in);
    setThread(cx, tt, ss);
    ElementInfo el =
        accessedElement(cx, isDest ? "dest" : "source", mv.name, c, *m);
    el.globalCoords = gc;
    cx.elements.push_back(el);
    std::string note;
    llvm::raw_string_ostream os(note);
    os << opDesc(op) << (isDest ? " writes " : " reads ") << mv.name << "[";
    llvm::interleaveComma(gc, os);
    os << "] as the first of a " << n << "-element (" << n * elemBytes
       << "-byte) vector, at linear offset " << linear << " of a tensor of "
       << "sizes [";
    llvm::interleaveComma(sz, os);
    os << "], not a multiple of " << n << "; hint: state that the row "
       << "length (and the view's column offset) is a multiple of " << n
       << " with argus.assume, or move the tile with narrower vectors (the "
       << "DSL's copy_layout(..., vector=1))";
    cx.notes.push_back(note);
    res.counterexamples.push_back(cx);
  });
  // Scalar accesses need no alignment: no check to report.
  if (n == 1 && res.status == Status::Proved)
    return std::nullopt;
  return res;
}

} // namespace argus::verify::detail
