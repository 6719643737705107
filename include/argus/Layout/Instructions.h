//===- Instructions.h - Hardware instruction layout descriptors -*- C++ -*-===//
//
// Part of Argus. Operand layouts of matrix-core instructions and special
// copies, as layout-algebra functions shared by the verifier and lowering.
//
// MMA operand layouts are CuTe "TV" layouts: (thread, value) -> flat index of
// the operand tile, with
//   A (M x K): m + M*k,   B (K x N): n + N*k,   C/D (M x N): m + M*n.
// Sources of the fragment tables are cited in test/unit/Layout/.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_INSTRUCTIONS_H
#define ARGUS_LAYOUT_INSTRUCTIONS_H

#include "argus/Layout/Swizzle.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace argus::layout {

struct MmaOperandLayout {
  /// (thread, value) -> flat index (see the file comment).
  Layout tv;
};

struct MmaInstr {
  enum class Target { GFX942, SM90 };
  std::string name;
  Target target;
  int M, N, K;
  /// "f16", "bf16", "f8E4M3FNUZ" (gfx942), "f8E4M3FN", "f32", "tf32" (fp32
  /// registers that the multiplier reads at tf32 precision).
  std::string aType, bType, cType;
  /// 64 for an MFMA wave, 32 for mma.sync, 128 for wgmma.
  int threads;
  /// Values per thread. For an operand read from shared memory (wgmma B,
  /// and A of the ".ss" variants) every thread "sees" the whole tile: the
  /// thread mode has stride 0 and the value count is the tile size.
  int aRegs, bRegs, cRegs;
  /// wgmma SS: A comes from shared memory (B always does for wgmma).
  bool aFromShared = false;
  bool bFromShared = false;
  MmaOperandLayout A, B, C;

  /// (row m, col k) of A held by (thread, value).
  std::pair<int, int> aCoord(int thread, int value) const;
  /// (row k, col n) of B.
  std::pair<int, int> bCoord(int thread, int value) const;
  /// (row m, col n) of C/D.
  std::pair<int, int> cCoord(int thread, int value) const;
};

std::optional<MmaInstr> lookupMmaInstr(llvm::StringRef name);
/// Every name lookupMmaInstr accepts, except that wgmma is listed only for
/// N in {8, 16, 32, 64, 128, 256} (all multiples of 8 up to 256 are accepted).
std::vector<std::string> knownMmaInstrNames();
/// The known name closest to `name` (edit distance), for "did you mean".
std::string closestMmaInstrName(llvm::StringRef name);

/// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16: a warp loads 1,
/// 2 or 4 8x8 matrices of 16-bit elements. Lane 8*i + r supplies the address
/// of row r of matrix i (lanes beyond 8*numMatrices supply none).
struct LdMatrixInstr {
  std::string name; // "ldmatrix.x4", "ldmatrix.x2.trans", ...
  int numMatrices;
  bool transposed;
  int threads = 32;
  /// Values per lane: 2 per matrix (one 32-bit register of two b16).
  int values;
  /// (lane, value) -> 64*matrix + 8*row + col, where (row, col) is the
  /// element's position in the 8x8 matrix as stored in memory (row = the
  /// row whose address some lane supplied).
  Layout tv;
  /// (row, matrix) -> lane supplying that row's address: (8,n):(1,8).
  Layout rowAddrLane;

  struct Elem {
    int matrix, row, col;
  };
  Elem coord(int lane, int value) const;
};

std::optional<LdMatrixInstr> lookupLdMatrix(llvm::StringRef name);

/// Shared-memory swizzle modes of wgmma descriptors and TMA.
enum class SmemSwizzle { None, B32, B64, B128 };

struct SmemSwizzleAtom {
  SmemSwizzle mode;
  /// The swizzle on byte addresses: Sw<log2(bytes/16), 4, 3>
  /// (Sw<0,4,3>, i.e. none, for the interleaved mode).
  Swizzle byteSwizzle;
  /// The K-major atom in element units: (8 rows, W/e elements) row-major,
  /// composed with the element-unit swizzle Sw<B, 4 - log2(e), 3>, where W
  /// is the swizzle width in bytes (16 for None) and e the element size in
  /// bytes. For b16 and 128B: Sw<3,3,3> o (8,64):(64,1).
  SwizzledLayout atom;
};

/// Fails for element sizes other than 8, 16, 32 bits.
llvm::Expected<SmemSwizzleAtom> smemSwizzleAtom(SmemSwizzle mode,
                                                int elementBits = 16);
/// "none", "32B", "64B", "128B".
std::optional<SmemSwizzle> parseSmemSwizzle(llvm::StringRef s);
llvm::StringRef toString(SmemSwizzle s);

/// Where a TMA tiled copy (cp.async.bulk.tensor.Nd) of a tile of `tileShape`
/// puts element `coord` in shared memory, as a byte offset from the
/// destination (aligned to the swizzle's repeat, 1024 bytes for 128B). The
/// tile is a row-major grid of boxes of `box` (outermost dimension first);
/// each box lands `box bytes` after the previous one, row-major inside,
/// with the byte swizzle of `swizzleBytes` (0, 32, 64, 128) applied to the
/// whole offset. `tileShape` must be a multiple of `box` dimension-wise.
int64_t tmaSharedByteOffset(const std::vector<int64_t> &tileShape,
                            const std::vector<int64_t> &box,
                            int64_t elementBytes, int64_t swizzleBytes,
                            const std::vector<int64_t> &coord);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_INSTRUCTIONS_H
