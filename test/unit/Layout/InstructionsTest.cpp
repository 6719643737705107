//===- InstructionsTest.cpp - Hardware instruction descriptors ------------===//
//
// Reference tables:
//  * NVIDIA, "Parallel Thread Execution ISA", section 9.7.14.5.8 "Matrix
//    Fragments for mma.m16n8k16 with floating point type": groupID = laneid
//    >> 2, threadID_in_group = laneid % 4;
//      A: row = groupID (+8 for a2,a3,a6,a7), col = threadID_in_group*2 +
//         (i & 1) (+8 for a4..a7);
//      B: row = threadID_in_group*2 + (i & 1) (+8 for b2,b3), col = groupID;
//      C: row = groupID (+8 for c2,c3), col = threadID_in_group*2 + (i & 1).
//  * Same document, section 9.7.15.5.1 "Register Fragments" (wgmma
//    .m64nNk16): as above, with row += 16 * (warp id in the warpgroup) and
//    D columns repeated every 8 for i/4.
//  * Same document, "Warp-level matrix load instruction: ldmatrix": each
//    thread receives one 32-bit register per matrix holding row laneid/4,
//    columns 2*(laneid%4) + {0,1}; threads 8i..8i+7 supply matrix i's row
//    addresses.
//  * AMD Matrix Instruction Calculator (ROCm/amd_matrix_instruction_calculator,
//    "--architecture CDNA3 --detail-instruction") for gfx942:
//      v_mfma_f32_32x32x8_f16:  A[i][k] lane i + 32*(k/4), item k%4;
//                               B[k][j] lane j + 32*(k/4), item k%4;
//                               D[i][j] lane j + 32*((i/4)%2),
//                                       item i%4 + 4*(i/8)
//      v_mfma_f32_16x16x16_f16: A[i][k] lane i + 16*(k/4), item k%4;
//                               D[i][j] lane j + 16*(i/4), item i%4
//      fp8 (32x32x16, 16x16x32): as above with k/8 and item k%8.
//      f32 (32x32x2, 16x16x4): A[i][k] lane i + M*k, item 0.
//  * PTX ISA, "Matrix Fragments for mma.m16n8k8" (.tf32):
//      A: row = groupID (+8 for a1,a3), col = threadID_in_group (+4 for
//         a2,a3); B: row = threadID_in_group (+4 for b1), col = groupID;
//      C as m16n8k16.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "argus/Layout/Instructions.h"

#include <map>

using namespace argus::layout;
using namespace argus::layout::test;
using P = std::pair<int, int>;

TEST_CASE("mma.m16n8k16 fragment table entries", "[instr]") {
  MmaInstr m = *lookupMmaInstr("mma.m16n8k16.f32.f16");
  // lane 5: groupID 1, threadID_in_group 1.
  CHECK(m.aCoord(5, 0) == P{1, 2});
  CHECK(m.aCoord(5, 1) == P{1, 3});
  CHECK(m.aCoord(5, 2) == P{9, 2});
  CHECK(m.aCoord(5, 3) == P{9, 3});
  CHECK(m.aCoord(5, 4) == P{1, 10});
  CHECK(m.aCoord(5, 7) == P{9, 11});
  CHECK(m.bCoord(5, 0) == P{2, 1});
  CHECK(m.bCoord(5, 1) == P{3, 1});
  CHECK(m.bCoord(5, 2) == P{10, 1});
  CHECK(m.bCoord(31, 3) == P{15, 7});
  CHECK(m.cCoord(5, 0) == P{1, 2});
  CHECK(m.cCoord(5, 3) == P{9, 3});
  CHECK(m.cCoord(31, 3) == P{15, 7});
  // Whole table.
  for (const char *name : {"mma.m16n8k16.f32.f16", "mma.m16n8k16.f32.bf16"}) {
    MmaInstr x = *lookupMmaInstr(name);
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane >> 2, t = lane % 4;
      for (int i = 0; i < 8; ++i)
        REQUIRE(x.aCoord(lane, i) ==
                P{g + 8 * ((i >> 1) & 1), t * 2 + (i & 1) + 8 * (i >> 2)});
      for (int i = 0; i < 4; ++i) {
        REQUIRE(x.bCoord(lane, i) == P{t * 2 + (i & 1) + 8 * (i >> 1), g});
        REQUIRE(x.cCoord(lane, i) == P{g + 8 * (i >> 1), t * 2 + (i & 1)});
      }
    }
  }
}

TEST_CASE("mma.m16n8k8 tf32 fragment table", "[instr]") {
  MmaInstr x = *lookupMmaInstr("mma.m16n8k8.f32.tf32");
  REQUIRE(x.K == 8);
  REQUIRE(x.aType == "tf32");
  REQUIRE(x.aRegs == 4);
  REQUIRE(x.bRegs == 2);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane >> 2, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      REQUIRE(x.aCoord(lane, i) == P{g + 8 * (i & 1), t + 4 * (i >> 1)});
      REQUIRE(x.cCoord(lane, i) == P{g + 8 * (i >> 1), t * 2 + (i & 1)});
    }
    for (int i = 0; i < 2; ++i)
      REQUIRE(x.bCoord(lane, i) == P{t + 4 * i, g});
  }
}

TEST_CASE("wgmma fragment tables", "[instr]") {
  for (int n : {8, 16, 64, 128, 136, 256}) {
    MmaInstr x =
        *lookupMmaInstr("wgmma.m64n" + std::to_string(n) + "k16.f32.bf16");
    REQUIRE(x.N == n);
    REQUIRE(x.cRegs == n / 2);
    for (int tid = 0; tid < 128; ++tid) {
      int w = tid / 32, lane = tid % 32, g = lane >> 2, t = lane % 4;
      for (int i = 0; i < x.cRegs; ++i)
        REQUIRE(x.cCoord(tid, i) == P{16 * w + g + 8 * ((i >> 1) & 1),
                                      8 * (i / 4) + 2 * t + (i & 1)});
      for (int i = 0; i < 8; ++i)
        REQUIRE(x.aCoord(tid, i) == P{16 * w + g + 8 * ((i >> 1) & 1),
                                      2 * t + (i & 1) + 8 * (i >> 2)});
    }
  }
  MmaInstr ss = *lookupMmaInstr("wgmma.m64n64k16.f32.f16.ss");
  CHECK(ss.aFromShared);
  CHECK(ss.aCoord(77, 65) == P{1, 1});
  CHECK_FALSE(lookupMmaInstr("wgmma.m64n12k16.f32.f16"));
  CHECK_FALSE(lookupMmaInstr("wgmma.m64n264k16.f32.f16"));
  CHECK_FALSE(lookupMmaInstr("wgmma.m64n064k16.f32.f16"));
}

// PTX ISA, "Register Fragments" for wgmma .m64nNk8 (.tf32): warp w of the
// warpgroup holds rows 16w..16w+15 of A; a0:(g, t), a1:(g+8, t), a2:(g, t+4),
// a3:(g+8, t+4); the accumulator as for k16.
TEST_CASE("wgmma tf32 fragment tables", "[instr]") {
  for (int n : {8, 128, 256}) {
    MmaInstr x =
        *lookupMmaInstr("wgmma.m64n" + std::to_string(n) + "k8.f32.tf32");
    REQUIRE(x.K == 8);
    REQUIRE(x.aType == "tf32");
    REQUIRE(x.aRegs == 4);
    REQUIRE(x.cRegs == n / 2);
    for (int tid = 0; tid < 128; ++tid) {
      int w = tid / 32, lane = tid % 32, g = lane >> 2, t = lane % 4;
      for (int i = 0; i < 4; ++i)
        REQUIRE(x.aCoord(tid, i) ==
                P{16 * w + g + 8 * (i & 1), t + 4 * (i >> 1)});
      for (int i = 0; i < x.cRegs; ++i)
        REQUIRE(x.cCoord(tid, i) == P{16 * w + g + 8 * ((i >> 1) & 1),
                                      8 * (i / 4) + 2 * t + (i & 1)});
      // B comes from shared memory: every thread sees the whole K x N tile.
      for (int v : {0, 1, n * 8 - 1})
        REQUIRE(x.bCoord(tid, v) == P{v / n, v % n});
    }
  }
  MmaInstr ss = *lookupMmaInstr("wgmma.m64n256k8.f32.tf32.ss");
  CHECK(ss.aFromShared);
  CHECK(ss.aRegs == 64 * 8);
  CHECK(ss.aCoord(5, 64 * 7 + 3) == P{3, 7});
  CHECK_FALSE(lookupMmaInstr("wgmma.m64n64k16.f32.tf32"));
  CHECK_FALSE(lookupMmaInstr("wgmma.m64n64k8.f32.bf16"));
  CHECK_FALSE(lookupMmaInstr("wgmma.m64n64k8.f32.f32"));
}

TEST_CASE("MFMA fragment tables (gfx942)", "[instr]") {
  struct Ref {
    const char *name;
    int m, k, perLane; // k values per lane group
  };
  for (Ref r : {Ref{"v_mfma_f32_32x32x8_f16", 32, 8, 4},
                Ref{"v_mfma_f32_32x32x8_bf16", 32, 8, 4},
                Ref{"v_mfma_f32_16x16x16_f16", 16, 16, 4},
                Ref{"v_mfma_f32_16x16x16_bf16", 16, 16, 4},
                Ref{"v_mfma_f32_32x32x16_fp8_fp8", 32, 16, 8},
                Ref{"v_mfma_f32_16x16x32_fp8_fp8", 16, 32, 8},
                Ref{"v_mfma_f32_32x32x2_f32", 32, 2, 1},
                Ref{"v_mfma_f32_16x16x4_f32", 16, 4, 1}}) {
    INFO(r.name);
    MmaInstr x = *lookupMmaInstr(r.name);
    REQUIRE(x.threads == 64);
    REQUIRE(x.K == r.k);
    // A[i][k] in lane i + M*(k/perLane), item k%perLane; B likewise.
    for (int i = 0; i < r.m; ++i)
      for (int k = 0; k < r.k; ++k) {
        int lane = i + r.m * (k / r.perLane), item = k % r.perLane;
        REQUIRE(x.aCoord(lane, item) == P{i, k});
        REQUIRE(x.bCoord(lane, item) == P{k, i});
      }
    // D[i][j].
    for (int i = 0; i < r.m; ++i)
      for (int j = 0; j < r.m; ++j) {
        int lane, item;
        if (r.m == 32) {
          lane = j + 32 * ((i / 4) % 2);
          item = i % 4 + 4 * (i / 8);
        } else {
          lane = j + 16 * (i / 4);
          item = i % 4;
        }
        REQUIRE(x.cCoord(lane, item) == P{i, j});
      }
  }
  // The calculator's A table for v_mfma_f32_16x16x16f16 lists
  // A[0][0] -> v0{0}.[15:0], A[0][3] -> v1{0}.[31:16], A[0][4] ->
  // v0{16}.[15:0] (lane in braces; item = 2*vgpr + half).
  MmaInstr h = *lookupMmaInstr("v_mfma_f32_16x16x16_f16");
  CHECK(h.aCoord(0, 0) == P{0, 0});
  CHECK(h.aCoord(0, 3) == P{0, 3});
  CHECK(h.aCoord(16, 0) == P{0, 4});
  // Spot checks from the calculator's formulas for 32x32x8 f16.
  MmaInstr x = *lookupMmaInstr("v_mfma_f32_32x32x8_f16");
  CHECK(x.aCoord(33, 2) == P{1, 6});
  CHECK(x.cCoord(40, 5) == P{13, 8});
  CHECK(x.cCoord(0, 15) == P{27, 0});
}

TEST_CASE("every instruction's operand layouts cover their domains",
          "[instr][prop]") {
  auto names = knownMmaInstrNames();
  CHECK(names.size() >= 6 + 2 + 24);
  for (const std::string &name : names) {
    INFO(name);
    MmaInstr x = *lookupMmaInstr(name);
    REQUIRE(x.name == name);
    // C: a bijection (threads x cRegs) -> M*N.
    REQUIRE(x.C.tv.size() == int64_t(x.threads) * x.cRegs);
    REQUIRE(x.C.tv.size() == int64_t(x.M) * x.N);
    REQUIRE(isBijective(x.C.tv));
    // A and B: every element held the same number of times.
    auto multiplicity = [](const Layout &tv, int64_t n) {
      std::map<int64_t, int> count;
      for (int64_t i = 0; i < tv.size(); ++i)
        count[tv(i)]++;
      REQUIRE(int64_t(count.size()) == n);
      int c0 = count.begin()->second;
      for (auto &[k, c] : count)
        REQUIRE(c == c0);
      return c0;
    };
    REQUIRE(x.A.tv.size() == int64_t(x.threads) * x.aRegs);
    REQUIRE(x.B.tv.size() == int64_t(x.threads) * x.bRegs);
    REQUIRE(multiplicity(x.A.tv, int64_t(x.M) * x.K) ==
            (x.aFromShared ? x.threads : 1));
    REQUIRE(multiplicity(x.B.tv, int64_t(x.N) * x.K) ==
            (x.bFromShared ? x.threads : 1));
  }
  CHECK(closestMmaInstrName("v_mfma_f32_32x32x8f16") ==
        "v_mfma_f32_32x32x8_f16");
  CHECK_FALSE(lookupMmaInstr("v_mfma_f32_32x32x8f16"));
}

TEST_CASE("ldmatrix descriptors", "[instr]") {
  for (int n : {1, 2, 4})
    for (bool trans : {false, true}) {
      std::string name =
          "ldmatrix.x" + std::to_string(n) + (trans ? ".trans" : "");
      INFO(name);
      LdMatrixInstr ld = *lookupLdMatrix(name);
      REQUIRE(ld.values == 2 * n);
      REQUIRE(isBijective(ld.tv));
      REQUIRE(ld.tv.size() == 64 * n);
      for (int lane = 0; lane < 32; ++lane)
        for (int v = 0; v < 2 * n; ++v) {
          auto e = ld.coord(lane, v);
          REQUIRE(e.matrix == v / 2);
          int r = lane / 4, c = 2 * (lane % 4) + v % 2;
          REQUIRE(e.row == (trans ? c : r));
          REQUIRE(e.col == (trans ? r : c));
        }
      for (int m = 0; m < n; ++m)
        for (int r = 0; r < 8; ++r)
          REQUIRE(ld.rowAddrLane(IntTuple::tuple({r, m})) == 8 * m + r);
    }
  CHECK_FALSE(lookupLdMatrix("ldmatrix.x3"));
}

TEST_CASE("shared-memory swizzle atoms", "[instr]") {
  auto a = ok(smemSwizzleAtom(SmemSwizzle::B128, 16), "atom");
  CHECK(a.atom.str() == "Sw<3,3,3> o (8,64):(64,1)");
  CHECK(a.byteSwizzle.str() == "Sw<3,4,3>");
  CHECK(ok(smemSwizzleAtom(SmemSwizzle::B64, 16), "a").atom.str() ==
        "Sw<2,3,3> o (8,32):(32,1)");
  CHECK(ok(smemSwizzleAtom(SmemSwizzle::B32, 16), "a").atom.str() ==
        "Sw<1,3,3> o (8,16):(16,1)");
  CHECK(ok(smemSwizzleAtom(SmemSwizzle::None, 16), "a").atom.str() ==
        "(8,8):(8,1)");
  // Element-unit atoms agree with the byte-address swizzle.
  for (auto mode : {SmemSwizzle::None, SmemSwizzle::B32, SmemSwizzle::B64,
                    SmemSwizzle::B128})
    for (int bits : {8, 16, 32}) {
      auto at = ok(smemSwizzleAtom(mode, bits), "atom");
      int e = bits / 8;
      REQUIRE(at.atom.cosize() == at.atom.size());
      for (int64_t i = 0; i < at.atom.size(); ++i)
        REQUIRE(e * at.atom(i) == at.byteSwizzle(e * at.atom.layout(i)));
    }
  CHECK(parseSmemSwizzle("128B") == SmemSwizzle::B128);
  CHECK_THAT(errorOf(smemSwizzleAtom(SmemSwizzle::B128, 64)),
             Catch::Contains("not 8, 16 or 32"));
}
