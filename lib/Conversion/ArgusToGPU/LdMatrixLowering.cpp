//===- LdMatrixLowering.cpp - 16-bit fragments loaded with ldmatrix -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A register tile of 16-bit elements loaded from shared memory is covered
// with ldmatrix.x{4,2,1}[.trans] instructions when, for every warp, the
// instruction gives each lane exactly the elements the tile's layout does.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"
#include "TileAccess.h"

#include "argus/Layout/Instructions.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

/// One ldmatrix.x{n}[.trans] covering register slots [slot, slot + 2n):
/// value j = v + 2m of the instruction (matrix m, value v) is slot slot + j.
struct LdMatrixGroup {
  int64_t slot;
  int n;
  bool trans;
};

} // namespace

/// The lane of a warp that holds row `r`, column 0 of an 8x8 matrix, and
/// the value (0/1) it holds it in (see lookupLdMatrix's TV layout).
static std::pair<int, int> ldmRowOwner(int r, bool trans) {
  return trans ? std::make_pair(r / 2, r % 2) : std::make_pair(4 * r, 0);
}

/// Whether ldmatrix.x{n}[.trans] loads slots [s, s + 2n) of every thread:
/// for every warp and matrix, the 8 rows are 16-byte aligned runs of 8
/// consecutive elements of the shared layout (swizzle included), and every
/// lane's value (m, v) is the element the instruction gives it.
static bool ldmatrixFits(const ThreadCoords &tc, int64_t threads, TileType src,
                         const L::SwizzledLayout &mem, int64_t s, int n,
                         bool trans) {
  std::optional<L::LdMatrixInstr> instr = L::lookupLdMatrix(
      "ldmatrix.x" + std::to_string(n) + (trans ? ".trans" : ""));
  if (!instr || s + 2 * n > tc.numSlots() || threads % 32 != 0)
    return false;
  auto off = [&](int64_t t, int64_t slot) {
    return staticMemOffset(mem, src.getShape(), tc.staticCoord(t, slot));
  };
  for (int64_t w = 0; w < threads / 32; ++w)
    for (int m = 0; m < n; ++m) {
      int64_t rowStart[8];
      for (int r = 0; r < 8; ++r) {
        auto [lane, v] = ldmRowOwner(r, trans);
        rowStart[r] = off(32 * w + lane, s + 2 * m + v);
        if (rowStart[r] % 8 != 0)
          return false;
      }
      for (int lane = 0; lane < 32; ++lane)
        for (int v = 0; v < 2; ++v) {
          L::LdMatrixInstr::Elem e = instr->coord(lane, v + 2 * m);
          if (e.matrix != m ||
              off(32 * w + lane, s + 2 * m + v) != rowStart[e.row] + e.col)
            return false;
        }
    }
  return true;
}

/// Cover all slots of a 16-bit register tile loaded from shared memory with
/// ldmatrix instructions (widest first), or return nothing.
static SmallVector<LdMatrixGroup> planLdMatrix(const ThreadCoords &tc,
                                               int64_t threads, TileType src) {
  SmallVector<LdMatrixGroup> plan;
  L::SwizzledLayout mem = memLayout(src);
  for (int64_t s = 0; s < tc.numSlots();) {
    bool found = false;
    for (int n : {4, 2, 1}) {
      for (bool trans : {false, true})
        if (ldmatrixFits(tc, threads, src, mem, s, n, trans)) {
          plan.push_back({s, n, trans});
          s += 2 * n;
          found = true;
          break;
        }
      if (found)
        break;
    }
    if (!found)
      return {};
  }
  return plan;
}

/// ldmatrix: lane l supplies the address of row l % 8 of matrix
/// (l / 8) mod n; that row's first element is held by lane
/// ldmRowOwner(row) of the same warp, so its offset is evaluated from the
/// layout for that thread (one candidate per matrix and value, selected).
static Value emitLdMatrix(ConversionPatternRewriter &rewriter, Location loc,
                          const LdMatrixGroup &g, const ThreadCoords &owner,
                          Value rowInMatrix, Value matrix, Value src,
                          TileType st, Value acc) {
  Value addr;
  for (int m = 0; m < g.n; ++m)
    for (int v = 0; v < (g.trans ? 2 : 1); ++v) {
      Value mem = src;
      Value o = memIndices(rewriter, loc, mem, st,
                           owner.coord(rewriter, loc, g.slot + 2 * m + v))[0];
      if (!addr) {
        addr = o;
        continue;
      }
      Value c = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      matrix, cidx(rewriter, loc, m));
      if (g.trans)
        c = arith::AndIOp::create(
            rewriter, loc, c,
            arith::CmpIOp::create(
                rewriter, loc, arith::CmpIPredicate::eq,
                arith::RemUIOp::create(rewriter, loc, rowInMatrix,
                                       cidx(rewriter, loc, 2)),
                cidx(rewriter, loc, v)));
      addr = arith::SelectOp::create(rewriter, loc, c, o, addr);
    }
  Type elem = st.getElementType();
  Value r =
      nvgpu::LdMatrixOp::create(rewriter, loc, VectorType::get({g.n, 2}, elem),
                                src, ValueRange{addr}, g.trans, uint32_t(g.n));
  r = vector::ShapeCastOp::create(rewriter, loc,
                                  VectorType::get({2 * g.n}, elem), r);
  return vector::InsertStridedSliceOp::create(
      rewriter, loc, r, acc, ArrayRef<int64_t>{g.slot}, ArrayRef<int64_t>{1});
}

Value mlir::argus::loadWithLdMatrix(ConversionPatternRewriter &rewriter,
                                    Location loc, const KernelInfo &k,
                                    const L::Layout &tv, Value tid,
                                    const ThreadCoords &tc, Value srcMem,
                                    TileType src, TileType dst, VectorType vt) {
  if (!k.target->hasLdMatrix() || src.getMemorySpace() != MemorySpace::Shared ||
      dst.getElementType().getIntOrFloatBitWidth() != 16 ||
      tc.numThreads() != k.numThreads())
    return Value();
  SmallVector<LdMatrixGroup> plan = planLdMatrix(tc, k.numThreads(), src);
  if (plan.empty())
    return Value();
  Value acc = zeroVector(rewriter, loc, vt);
  Value lane =
      arith::RemUIOp::create(rewriter, loc, tid, cidx(rewriter, loc, 32));
  Value warpBase = arith::SubIOp::create(rewriter, loc, tid, lane);
  Value row =
      arith::RemUIOp::create(rewriter, loc, lane, cidx(rewriter, loc, 8));
  Value mat8 =
      arith::DivUIOp::create(rewriter, loc, lane, cidx(rewriter, loc, 8));
  // Owner lanes: 4 * row (plain) or row / 2 (transposed).
  std::optional<ThreadCoords> plain, trans;
  for (const LdMatrixGroup &g : plan) {
    std::optional<ThreadCoords> &owner = g.trans ? trans : plain;
    if (!owner) {
      Value ol = g.trans ? Value(arith::DivUIOp::create(rewriter, loc, row,
                                                        cidx(rewriter, loc, 2)))
                         : Value(arith::MulIOp::create(rewriter, loc, row,
                                                       cidx(rewriter, loc, 4)));
      owner.emplace(rewriter, loc, tv, dst.getShape(),
                    arith::AddIOp::create(rewriter, loc, warpBase, ol));
    }
    Value matrix =
        arith::RemUIOp::create(rewriter, loc, mat8, cidx(rewriter, loc, g.n));
    acc = emitLdMatrix(rewriter, loc, g, *owner, row, matrix, srcMem, src, acc);
  }
  return acc;
}
