//===- Instructions.cpp - Hardware instruction layout descriptors ---------===//
//
// The TV layouts below were derived from the vendors' fragment tables:
//  * NVIDIA PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point
//    type" (groupID = lane / 4, threadID_in_group = lane % 4) and "Register
//    Fragments and Shared Memory Matrix Layouts" for wgmma .m64nNk16;
//    "Matrix Fragments for mma.m16n8k8" (.tf32);
//    "Warp-level matrix load instruction: ldmatrix".
//  * AMD CDNA3 ISA / AMD Matrix Instruction Calculator for gfx942 MFMA
//    (e.g. 32x32x8 f16: A[i][k] in lane i + 32*(k/4), item k%4;
//    D[i][j] in lane j + 32*((i/4)%2), item i%4 + 4*(i/8)).
// The unit tests check them entry by entry against those formulas.
//
//===----------------------------------------------------------------------===//
#include "argus/Layout/Instructions.h"
#include "argus/Layout/Parse.h"

#include "llvm/ADT/Twine.h"

#include <map>
#include <mutex>

using namespace argus::layout;

namespace {
Layout L(const std::string &s) { return llvm::cantFail(parsePlainLayout(s)); }

std::pair<int, int> split(int64_t flat, int rows) {
  return {int(flat % rows), int(flat / rows)};
}

MmaInstr mfma(const char *name, int m, int n, int k, const char *ty, int inRegs,
              const char *a, const char *c) {
  MmaInstr r;
  r.name = name;
  r.target = MmaInstr::Target::GFX942;
  r.M = m;
  r.N = n;
  r.K = k;
  r.aType = r.bType = ty;
  r.cType = "f32";
  r.threads = 64;
  r.aRegs = r.bRegs = inRegs;
  r.cRegs = m * n / 64;
  r.A.tv = L(a);
  r.B.tv = L(a); // B (K x N) in n + N*k mirrors A (M x K) in m + M*k.
  r.C.tv = L(c);
  return r;
}

std::vector<MmaInstr> buildMfmaTable() {
  const char *a32x8 = "((32,2),4):((1,128),32)";
  const char *a16x16 = "((16,4),4):((1,64),16)";
  const char *c32 = "((32,2),(4,4)):((32,4),(1,8))";
  const char *c16 = "((16,4),4):((16,4),1)";
  return {
      mfma("v_mfma_f32_32x32x8_f16", 32, 32, 8, "f16", 4, a32x8, c32),
      mfma("v_mfma_f32_16x16x16_f16", 16, 16, 16, "f16", 4, a16x16, c16),
      mfma("v_mfma_f32_32x32x8_bf16", 32, 32, 8, "bf16", 4, a32x8, c32),
      mfma("v_mfma_f32_16x16x16_bf16", 16, 16, 16, "bf16", 4, a16x16, c16),
      mfma("v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, "f8E4M3FNUZ", 8,
           "((32,2),8):((1,256),32)", c32),
      mfma("v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, "f8E4M3FNUZ", 8,
           "((16,4),8):((1,128),16)", c16),
      // Full fp32 (one register per lane): A[i][k] in lane i + M*k.
      mfma("v_mfma_f32_32x32x2_f32", 32, 32, 2, "f32", 1,
           "((32,2),1):((1,32),0)", c32),
      mfma("v_mfma_f32_16x16x4_f32", 16, 16, 4, "f32", 1,
           "((16,4),1):((1,16),0)", c16),
  };
}

const std::vector<MmaInstr> &mfmaTable() {
  static const std::vector<MmaInstr> table = buildMfmaTable();
  return table;
}

MmaInstr mmaSync(const char *name, const char *ty) {
  MmaInstr r;
  r.name = name;
  r.target = MmaInstr::Target::SM90;
  r.M = 16;
  r.N = 8;
  r.K = 16;
  r.aType = r.bType = ty;
  r.cType = "f32";
  r.threads = 32;
  r.aRegs = 8;
  r.bRegs = 4;
  r.cRegs = 4;
  r.A.tv = L("((4,8),(2,2,2)):((32,1),(16,8,128))");
  r.B.tv = L("((4,8),(2,2)):((16,1),(8,64))");
  r.C.tv = L("((4,8),(2,2)):((32,1),(16,8))");
  return r;
}

/// mma.m16n8k8 on tf32 (fp32 registers, the multiplier reads 10 mantissa
/// bits): A a0:(g, t), a1:(g+8, t), a2:(g, t+4), a3:(g+8, t+4); B b0:(k=t,
/// n=g), b1:(t+4, g); C as m16n8k16.
MmaInstr mmaSyncTf32() {
  MmaInstr r = mmaSync("mma.m16n8k8.f32.tf32", "tf32");
  r.K = 8;
  r.aRegs = 4;
  r.bRegs = 2;
  r.A.tv = L("((4,8),(2,2)):((16,1),(8,64))");
  r.B.tv = L("((4,8),2):((8,1),32)");
  return r;
}

/// wgmma.m64nNk16 on f16/bf16 and wgmma.m64nNk8 on tf32: every k-step is
/// 32 bytes of each operand row. The register A fragment of a warp covers
/// rows 16w..16w+15 (groupID g = lane / 4, t = lane % 4): 16-bit a0..a7 at
/// (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1), then the same at k + 8;
/// tf32 a0..a3 at (g, t), (g+8, t), (g, t+4), (g+8, t+4).
std::optional<MmaInstr> wgmma(int n, llvm::StringRef ty, bool ss) {
  if (n < 8 || n > 256 || n % 8 != 0)
    return std::nullopt;
  bool tf32 = ty == "tf32";
  int k = tf32 ? 8 : 16;
  MmaInstr r;
  r.name = "wgmma.m64n" + std::to_string(n) + "k" + std::to_string(k) +
           ".f32." + ty.str() + (ss ? ".ss" : "");
  r.target = MmaInstr::Target::SM90;
  r.M = 64;
  r.N = n;
  r.K = k;
  r.aType = r.bType = ty.str();
  r.cType = "f32";
  r.threads = 128;
  r.aFromShared = ss;
  r.bFromShared = true;
  std::string ks = std::to_string(k);
  if (ss) {
    r.aRegs = 64 * k;
    r.A.tv = L("(128,(64," + ks + ")):(0,(1,64))");
  } else if (tf32) {
    r.aRegs = 4;
    r.A.tv = L("((4,8,4),(2,2)):((64,1,16),(8,256))");
  } else {
    r.aRegs = 8;
    r.A.tv = L("((4,8,4),(2,2,2)):((128,1,16),(64,8,512))");
  }
  r.bRegs = n * k;
  std::string ns = std::to_string(n);
  r.B.tv = L("(128,(" + ns + "," + ks + ")):(0,(1," + ns + "))");
  r.cRegs = n / 2;
  r.C.tv = L("((4,8,4),(2,2," + std::to_string(n / 8) +
             ")):((128,1,16),(64,8,512))");
  return r;
}
} // namespace

std::pair<int, int> MmaInstr::aCoord(int thread, int value) const {
  return split(A.tv(IntTuple::tuple({thread, value})), M);
}

std::pair<int, int> MmaInstr::bCoord(int thread, int value) const {
  auto [n, k] = split(B.tv(IntTuple::tuple({thread, value})), N);
  return {k, n};
}

std::pair<int, int> MmaInstr::cCoord(int thread, int value) const {
  return split(C.tv(IntTuple::tuple({thread, value})), M);
}

static std::optional<MmaInstr> lookupUncached(llvm::StringRef name) {
  for (const MmaInstr &i : mfmaTable())
    if (i.name == name)
      return i;
  if (name == "mma.m16n8k16.f32.f16")
    return mmaSync("mma.m16n8k16.f32.f16", "f16");
  if (name == "mma.m16n8k16.f32.bf16")
    return mmaSync("mma.m16n8k16.f32.bf16", "bf16");
  if (name == "mma.m16n8k8.f32.tf32")
    return mmaSyncTf32();
  llvm::StringRef rest = name;
  if (!rest.consume_front("wgmma.m64n"))
    return std::nullopt;
  unsigned n;
  if (rest.consumeInteger(10, n))
    return std::nullopt;
  bool k8 = rest.consume_front("k8.f32.");
  if (!k8 && !rest.consume_front("k16.f32."))
    return std::nullopt;
  bool ss = rest.consume_back(".ss");
  if (k8 ? rest != "tf32" : rest != "f16" && rest != "bf16")
    return std::nullopt;
  auto r = wgmma(int(n), rest, ss);
  if (r && r->name != name) // reject e.g. leading zeros
    return std::nullopt;
  return r;
}

std::optional<MmaInstr> argus::layout::lookupMmaInstr(llvm::StringRef name) {
  // Building a descriptor parses its layouts; op verifiers and type parsers
  // look the same few instructions up for every tile. The known names are
  // finite, so only hits are kept.
  static std::mutex mutex;
  static std::map<std::string, MmaInstr, std::less<>> known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(name);
    if (it != known.end())
      return it->second;
  }
  std::optional<MmaInstr> r = lookupUncached(name);
  if (r) {
    std::lock_guard<std::mutex> lock(mutex);
    known.emplace(name.str(), *r);
  }
  return r;
}

std::vector<std::string> argus::layout::knownMmaInstrNames() {
  std::vector<std::string> r;
  for (const MmaInstr &i : mfmaTable())
    r.push_back(i.name);
  r.push_back("mma.m16n8k16.f32.f16");
  r.push_back("mma.m16n8k16.f32.bf16");
  r.push_back("mma.m16n8k8.f32.tf32");
  for (int n : {8, 16, 32, 64, 128, 256})
    for (const char *ty : {"f16", "bf16", "tf32"})
      for (bool ss : {false, true})
        r.push_back(wgmma(n, ty, ss)->name);
  return r;
}

std::string argus::layout::closestMmaInstrName(llvm::StringRef name) {
  std::string best;
  unsigned bestD = ~0u;
  for (const std::string &k : knownMmaInstrNames()) {
    unsigned d = llvm::StringRef(k).edit_distance(name);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best;
}

LdMatrixInstr::Elem LdMatrixInstr::coord(int lane, int value) const {
  int64_t f = tv(IntTuple::tuple({lane, value}));
  return {int(f / 64), int((f % 64) / 8), int(f % 8)};
}

std::optional<LdMatrixInstr>
argus::layout::lookupLdMatrix(llvm::StringRef name) {
  llvm::StringRef rest = name;
  if (!rest.consume_front("ldmatrix.x"))
    return std::nullopt;
  unsigned n;
  if (rest.consumeInteger(10, n) || (n != 1 && n != 2 && n != 4))
    return std::nullopt;
  bool trans = rest.consume_front(".trans");
  if (!rest.empty())
    return std::nullopt;
  LdMatrixInstr r;
  r.name = name.str();
  r.numMatrices = int(n);
  r.transposed = trans;
  r.values = 2 * int(n);
  std::string ns = std::to_string(n);
  // Non-transposed: lane l holds row l/4, cols 2*(l%4) + {0,1} of each
  // matrix. Transposed: the same register positions receive the transpose:
  // row 2*(l%4) + v, col l/4.
  r.tv = trans ? L("((4,8),(2," + ns + ")):((16,1),(8,64))")
               : L("((4,8),(2," + ns + ")):((2,8),(1,64))");
  r.rowAddrLane = L("(8," + ns + "):(1,8)");
  return r;
}

llvm::Expected<SmemSwizzleAtom>
argus::layout::smemSwizzleAtom(SmemSwizzle mode, int elementBits) {
  int logE;
  switch (elementBits) {
  case 8:
    logE = 0;
    break;
  case 16:
    logE = 1;
    break;
  case 32:
    logE = 2;
    break;
  default:
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "smem swizzle atom: element size " +
                                       std::to_string(elementBits) +
                                       " bits is not 8, 16 or 32");
  }
  int logW = 4 + int(mode); // 16, 32, 64, 128 bytes
  int b = int(mode);
  int cols = (1 << logW) >> logE;
  Layout atom = Layout(IntTuple::tuple({8, cols}), IntTuple::tuple({cols, 1}));
  SmemSwizzleAtom r{mode, llvm::cantFail(Swizzle::get(b, 4, 3)),
                    SwizzledLayout(atom)};
  if (mode != SmemSwizzle::None)
    r.atom.swizzle = llvm::cantFail(Swizzle::get(b, 4 - logE, 3));
  return r;
}

std::optional<SmemSwizzle> argus::layout::parseSmemSwizzle(llvm::StringRef s) {
  if (s == "none")
    return SmemSwizzle::None;
  if (s == "32B")
    return SmemSwizzle::B32;
  if (s == "64B")
    return SmemSwizzle::B64;
  if (s == "128B")
    return SmemSwizzle::B128;
  return std::nullopt;
}

llvm::StringRef argus::layout::toString(SmemSwizzle s) {
  switch (s) {
  case SmemSwizzle::None:
    return "none";
  case SmemSwizzle::B32:
    return "32B";
  case SmemSwizzle::B64:
    return "64B";
  case SmemSwizzle::B128:
    return "128B";
  }
  return "none";
}

int64_t
argus::layout::tmaSharedByteOffset(const std::vector<int64_t> &tileShape,
                                   const std::vector<int64_t> &box,
                                   int64_t elementBytes, int64_t swizzleBytes,
                                   const std::vector<int64_t> &coord) {
  int64_t boxIndex = 0, inBox = 0, boxElems = 1;
  for (size_t d = 0; d < tileShape.size(); ++d) {
    boxIndex = boxIndex * (tileShape[d] / box[d]) + coord[d] / box[d];
    inBox = inBox * box[d] + coord[d] % box[d];
    boxElems *= box[d];
  }
  int64_t bytes = (boxIndex * boxElems + inBox) * elementBytes;
  // Sw<B,4,3> on bytes: the 16-byte chunk index (bits 4..4+B) XORs with the
  // row of 2^(B+4)-byte rows within the repeat (bits 7..7+B).
  int64_t b = swizzleBytes == 128  ? 3
              : swizzleBytes == 64 ? 2
              : swizzleBytes == 32 ? 1
                                   : 0;
  int64_t mask = (int64_t(1) << b) - 1;
  return bytes ^ (((bytes >> 7) & mask) << 4);
}
