//===- BenchVerify.cpp - tag verifier benchmark ---------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Prints, per example kernel, the verification time and the number of Z3
// queries, then the time for one GEMM generated at 64..1024 threads per
// block (the verifier never enumerates threads, so this should stay flat).
//
// Usage: argus-bench-verify [examples-dir] [--repeat N] [--threads N]
// (--threads: VerifyOptions::threads, the shards each kernel's checks run on)
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Verify/TagVerifier.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

using namespace mlir;

namespace {

struct Timing {
  double ms = 0;
  unsigned queries = 0, checks = 0, proved = 0;
  bool ok = false;
};

void registerAll(DialectRegistry &registry) {
  registry.insert<mlir::argus::ArgusDialect, affine::AffineDialect,
                  arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                  memref::MemRefDialect, scf::SCFDialect>();
}

/// Best-of-N wall time of verifying every kernel in `module`.
Timing run(ModuleOp module, int repeat, unsigned threads) {
  Timing best;
  best.ms = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    ::argus::verify::VerifyOptions opts;
    opts.threads = threads;
    auto reports = ::argus::verify::verifyModule(module, opts);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    Timing t;
    t.ms = ms;
    t.ok = !reports.empty();
    for (auto &k : reports) {
      t.queries += k.queries;
      for (auto &c : k.checks) {
        ++t.checks;
        t.proved += c.status == ::argus::verify::Status::Proved;
      }
    }
    if (t.ms < best.ms)
      best = t;
  }
  return best;
}

/// The gemm_mfma kernel at `threads` threads per block: the warp grid grows
/// with the block, each warp keeps 2x2 repetitions of a 32x32 MFMA tile.
std::string gemmAt(int threads) {
  int warps = threads / 64;
  int wm = 1, wn = 1;
  while (wm * wn < warps)
    (wm <= wn ? wm : wn) *= 2;
  int M = 64 * wm, N = 64 * wn, BK = 32;
  auto str = [](int x) { return std::to_string(x); };
  std::string fa = "#argus.frag<\"v_mfma_f32_32x32x8_f16\", a, warps = [" +
                   str(wm) + ", " + str(wn) + "]>";
  std::string fb = "#argus.frag<\"v_mfma_f32_32x32x8_f16\", b, warps = [" +
                   str(wm) + ", " + str(wn) + "]>";
  std::string fc = "#argus.frag<\"v_mfma_f32_32x32x8_f16\", c, warps = [" +
                   str(wm) + ", " + str(wn) + "]>";
  int va = M * BK / threads, vb = BK * N / threads;
  std::string s;
  s += "#CopyA = #argus.layout<\"(" + str(threads) + "," + str(va) + "):(" +
       str(va) + ",1)\">\n";
  s += "#CopyB = #argus.layout<\"(" + str(threads) + "," + str(vb) + "):(" +
       str(vb) + ",1)\">\n";
  s += "#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>\n";
  std::string GA = "!argus.tile<" + str(M) + "x32xf16, global>";
  std::string GB = "!argus.tile<32x" + str(N) + "xf16, global>";
  std::string SA = "!argus.tile<" + str(M) +
                   "x32xf16, shared, \"Sw<2,3,2> o (" + str(M) +
                   ",32):(32,1)\">";
  std::string SB = "!argus.tile<32x" + str(N) + "xf16, shared, \"(32," +
                   str(N) + "):(" + str(N) + ",1)\">";
  std::string RA = "!argus.tile<" + str(M) + "x32xf16, register, " + fa + ">";
  std::string RB = "!argus.tile<32x" + str(N) + "xf16, register, " + fb + ">";
  std::string RC =
      "!argus.tile<" + str(M) + "x" + str(N) + "xf32, register, " + fc + ">";
  std::string GC = "!argus.tile<" + str(M) + "x" + str(N) + "xf32, global>";
  s += "func.func @gemm_t" + str(threads) +
       "(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %K: "
       "index) attributes {argus.kernel = #argus.kernel<block = [" +
       str(threads) + "], target = \"gfx942\">} {\n";
  s += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
       "  %c32 = arith.constant 32 : index\n  %cM = arith.constant " +
       str(M) + " : index\n  %cN = arith.constant " + str(N) + " : index\n";
  s += "  %bx = gpu.block_id x\n  %by = gpu.block_id y\n"
       "  %m0 = arith.muli %by, %cM : index\n  %n0 = arith.muli %bx, %cN : "
       "index\n  %kt_n = arith.divui %K, %c32 : index\n";
  // Shape preconditions: this block's tile is inside A and B, A has K
  // columns (the k loop reduces over all of them) and K is a multiple of
  // 32; the grid covers C exactly.
  s += "  %m1 = arith.addi %m0, %cM : index\n"
       "  %n1 = arith.addi %n0, %cN : index\n"
       "  %gx = gpu.grid_dim x\n  %gy = gpu.grid_dim y\n"
       "  %rows = arith.muli %gy, %cM : index\n"
       "  %cols = arith.muli %gx, %cN : index\n";
  const char *dims[][5] = {
      {"A", "0", "m1", "xf16", "uge"},  {"A", "1", "K", "xf16", "eq"},
      {"B", "0", "K", "xf16", "uge"},   {"B", "1", "n1", "xf16", "uge"},
      {"C", "0", "rows", "xf32", "eq"}, {"C", "1", "cols", "xf32", "eq"}};
  for (auto &d : dims) {
    std::string v = std::string(d[0]) + d[1];
    s += "  %d" + v + " = memref.dim %" + d[0] + ", %c" + d[1] +
         " : memref<?x?" + d[3] + ">\n";
    s += "  %ok" + v + " = arith.cmpi " + d[4] + ", %d" + v + ", %" + d[2] +
         " : index\n";
    s += "  argus.assume %ok" + v + ", \"" + d[0] + " covers the tile\"\n";
  }
  s += "  %krem = arith.remui %K, %c32 : index\n"
       "  %okk = arith.cmpi eq, %krem, %c0 : index\n"
       "  argus.assume %okk, \"K is a multiple of 32\"\n";
  s += "  %sa = argus.alloc \"sA\" : !argus.buffer<1 x " + SA + ">\n";
  s += "  %sb = argus.alloc \"sB\" : !argus.buffer<1 x " + SB + ">\n";
  s += "  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x " + SA + ">\n";
  s += "  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x " + SB + ">\n";
  s += "  %z = argus.fill 0.0 : " + RC + "\n";
  s += "  %acc0 = argus.tag %z [%m0, %n0] [\"m\", \"n\"] = #Coord : " + RC +
       "\n";
  s += "  %acc = scf.for %kt = %c0 to %kt_n step %c1 iter_args(%acc_i = "
       "%acc0) -> (" +
       RC + ") {\n";
  s += "    %k0 = arith.muli %kt, %c32 : index\n";
  s += "    %ga = argus.view \"A\" %A[%m0, %k0] : memref<?x?xf16> -> " + GA +
       "\n";
  s += "    %gat = argus.tag %ga [%m0, %k0] [\"m\", \"k\"] = #Coord : " + GA +
       "\n";
  s += "    %gb = argus.view \"B\" %B[%k0, %n0] : memref<?x?xf16> -> " + GB +
       "\n";
  s += "    %gbt = argus.tag %gb [%k0, %n0] [\"k\", \"n\"] = #Coord : " + GB +
       "\n";
  s += "    argus.copy %gat, %sa0 threads #CopyA : " + GA + ", " + SA + "\n";
  s += "    argus.copy %gbt, %sb0 threads #CopyB : " + GB + ", " + SB + "\n";
  s += "    argus.barrier\n";
  s += "    %af = argus.load %sa0 : " + SA + " -> " + RA + "\n";
  s += "    %bf = argus.load %sb0 : " + SB + " -> " + RB + "\n";
  s += "    %acc_n = argus.mma \"v_mfma_f32_32x32x8_f16\" %af, %bf, %acc_i : " +
       RA + ", " + RB + ", " + RC + "\n";
  s += "    argus.tag_assert %acc_n, \"a.k == b.k && a.m == acc.m && b.n == "
       "acc.n\" : " +
       RC + "\n";
  s += "    argus.barrier\n    scf.yield %acc_n : " + RC + "\n  }\n";
  s +=
      "  %gc = argus.view \"C\" %C[%m0, %n0] : memref<?x?xf32> -> " + GC + "\n";
  s += "  %gct = argus.tag %gc [%m0, %n0] [\"m\", \"n\"] = #Coord : " + GC +
       "\n";
  s += "  argus.store %acc, %gct : " + RC + ", " + GC + "\n";
  s += "  argus.tag_assert \"value.m == dest.m && value.n == dest.n\"\n";
  s += "  return\n}\n";
  return s;
}

} // namespace

int main(int argc, char **argv) {
  std::string dir = ARGUS_EXAMPLES_DIR;
  int repeat = 3;
  unsigned threads = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--threads" && i + 1 < argc)
      threads = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    else
      dir = a;
  }
  DialectRegistry registry;
  registerAll(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);

  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());

  llvm::outs() << "argus-bench-verify (best of " << repeat << ", " << threads
               << " shard(s) per kernel)\n\n";
  llvm::outs() << llvm::format("%-28s %10s %8s %8s\n", "kernel", "time (ms)",
                               "queries", "proved");
  bool allProved = true;
  for (const std::string &f : files) {
    llvm::SourceMgr sm;
    OwningOpRef<ModuleOp> m = parseSourceFile<ModuleOp>(f, sm, &ctx);
    if (!m) {
      llvm::outs() << llvm::sys::path::filename(f) << ": does not parse\n";
      allProved = false;
      continue;
    }
    Timing t = run(*m, repeat, threads);
    allProved &= t.proved == t.checks;
    llvm::outs() << llvm::format("%-28s %10.1f %8u %5u/%-3u\n",
                                 llvm::sys::path::stem(f).str().c_str(), t.ms,
                                 t.queries, t.proved, t.checks);
  }

  llvm::outs() << "\nGEMM (v_mfma_f32_32x32x8_f16, 2x2 repetitions per warp) "
                  "by threads per block\n";
  llvm::outs() << llvm::format("%-10s %10s %8s %8s %8s\n", "threads",
                               "time (ms)", "queries", "proved", "vs 64");
  double base = 0;
  for (int threads : {64, 128, 256, 512, 1024}) {
    std::string text = gemmAt(threads);
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, &ctx);
    if (!m) {
      llvm::outs() << threads << ": generated IR does not parse\n";
      allProved = false;
      continue;
    }
    Timing t = run(*m, repeat, 1);
    if (threads == 64)
      base = t.ms;
    allProved &= t.proved == t.checks;
    llvm::outs() << llvm::format("%-10d %10.1f %8u %5u/%-3u %7.2fx\n", threads,
                                 t.ms, t.queries, t.proved, t.checks,
                                 base > 0 ? t.ms / base : 0.0);
  }
  return allProved ? 0 : 1;
}
