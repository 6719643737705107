//===- VerifyTests.cpp - tests of the tag verifier ------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// 1. Every example kernel is proved, and runs clean in the concrete
//    interpreter (no unwritten / unsynchronized read, no write collision, no
//    sampled assertion failure).
// 2. Every kernel of the bug corpus (test/lit/Verify/bugs) is reported
//    violated, and each counterexample is replayed concretely: the
//    interpreter runs the block with the counterexample's kernel arguments
//    and block ids and confirms the failing assertion at the reported
//    elements and iteration, or the reported bad read / write.
// 3. Small unit checks of the semantics (unknown reasons, JSON).
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "ConcreteSim.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Verify/CheckKinds.h"
#include "argus/Verify/ModelLimits.h"
#include "argus/Verify/TagVerifier.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace mlir;
namespace V = ::argus::verify;

namespace {

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registry.insert<mlir::argus::ArgusDialect, affine::AffineDialect,
                    arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                    memref::MemRefDialect, scf::SCFDialect>();
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    c->printOpOnDiagnostic(false);
    return c;
  }();
  return *ctx;
}

std::vector<std::string> mlirFiles(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

OwningOpRef<ModuleOp> load(const std::string &path) {
  llvm::SourceMgr sm;
  ScopedDiagnosticHandler silence(&context(),
                                  [](Diagnostic &) { return success(); });
  return parseSourceFile<ModuleOp>(path, sm, &context());
}

OwningOpRef<ModuleOp> parse(const std::string &text) {
  ScopedDiagnosticHandler silence(&context(),
                                  [](Diagnostic &) { return success(); });
  return parseSourceString<ModuleOp>(text, &context());
}

func::FuncOp kernelOf(ModuleOp m) {
  func::FuncOp f;
  m.walk([&](func::FuncOp g) {
    if (g->hasAttr("argus.kernel"))
      f = g;
  });
  return f;
}

std::map<std::string, int64_t> paramsOf(const V::Counterexample &cx) {
  std::map<std::string, int64_t> p;
  for (auto &[n, v] : cx.params)
    p[n] = v;
  for (auto &[d, v] : cx.blockIds)
    p["block_id." + d] = v;
  return p;
}

/// The sm_90a attention kernels (arguments: heads, keys per head S, one
/// block per query tile).
bool isAttention(const std::string &path) {
  std::string base = llvm::sys::path::filename(path).str();
  return base.rfind("fa_", 0) == 0 || (base.rfind("flash_attention", 0) == 0 &&
                                       base.find("_ws") != std::string::npos);
}

/// The tile a store or copy writes (null for other ops).
Value writeDestOf(Operation *op) {
  if (auto s = dyn_cast<mlir::argus::StoreOp>(op))
    return s.getDest();
  if (auto c = dyn_cast<mlir::argus::CopyOp>(op))
    return c.getDest();
  if (auto t = dyn_cast<mlir::argus::TmaStoreOp>(op))
    return t.getDest();
  return Value();
}

/// How much a replay may run: loop iterations per block (per agent in the
/// asynchronous model, where one k-slab moves tens of thousands of elements)
/// and blocks of an output replay's grid.
int64_t replaySteps(func::FuncOp f) {
  return ::argus::sim::isAsyncKernel(f) ? 512 : 1 << 20;
}
int64_t replayBlocks(func::FuncOp f) {
  return ::argus::sim::isAsyncKernel(f) ? 16 : 64;
}
const char *kTooLarge = "the grid of the counterexample is too large to replay";

/// Arguments and sizes satisfying each example's shape preconditions on
/// a 4 x 4 grid: index arguments 256, dynamic sizes 256 unless the tiles
/// need more.
std::map<std::string, int64_t> exampleParams(const std::string &f,
                                             func::FuncOp k) {
  std::map<std::string, int64_t> params;
  for (BlockArgument a : k.getArguments()) {
    std::string n = "arg" + std::to_string(a.getArgNumber());
    params[n] = 256;
    if (auto mt = dyn_cast<MemRefType>(a.getType()))
      for (int64_t d = 0; d < mt.getRank(); ++d)
        params[n + ".dim" + std::to_string(d)] = 256;
  }
  // A mutant of an example (name@N.mlir) takes the example's arguments.
  std::string base = llvm::sys::path::filename(f).str();
  if (size_t at = base.find('@'); at != std::string::npos)
    base = base.substr(0, at) + ".mlir";
  std::map<std::string, std::map<std::string, int64_t>> sizes = {
      {"gemm_mfma.mlir",
       {{"arg0.dim0", 512},
        {"arg1.dim1", 512},
        {"arg2.dim0", 512},
        {"arg2.dim1", 512}}},
      {"gemm_wgmma.mlir", {{"arg1.dim1", 512}, {"arg2.dim1", 512}}},
      {"flash_attention_fwd.mlir", {{"arg0.dim0", 512}, {"arg3.dim0", 512}}},
      {"moe_grouped_gemm.mlir", {{"arg1.dim0", 4096}}},
      {"moe_grouped_gemm_ws.mlir",
       {{"arg1.dim0", 4096},
        {"arg1.dim1", 1024},
        {"arg2.dim1", 1024},
        {"arg3.dim0", 512},
        {"arg4.dim0", 512},
        {"arg5.dim0", 512}}},
      {"moe_grouped_gemm_persistent_ws.mlir",
       {{"arg1.dim0", 4096}, {"arg6.dim0", 2}}}};
  params["grid_dim.x"] = params["grid_dim.y"] = 4;
  params["block_id.x"] = 1;
  params["block_id.y"] = 2;
  // Attention: two heads of S keys (300: a partial last tile where the
  // kernel allows one), the block of the last query tile of head 1.
  if (isAttention(f)) {
    bool ragged = base.find("ragged") != std::string::npos,
         causal = base.find("causal") != std::string::npos;
    int64_t S = ragged ? 300 : 256, tiles = (S + 127) / 128;
    std::string q = causal ? "y" : "x", h = causal ? "x" : "y";
    params["arg5"] = S;
    for (int a = 0; a < 4; ++a) {
      params["arg" + std::to_string(a) + ".dim0"] = 2 * S;
      params["arg" + std::to_string(a) + ".dim1"] = 128;
    }
    params["arg4.dim0"] = 2 * S;
    params["grid_dim." + q] = tiles;
    params["block_id." + q] = tiles - 1;
    params["grid_dim." + h] = 2;
    params["block_id." + h] = 1;
  }
  for (auto &[n, v] : sizes[base])
    params[n] = v;
  return params;
}

/// Replays an output-once or output-coverage counterexample: runs every
/// block of the reported grid and counts the instances writing the element.
std::string replayOutput(func::FuncOp f, const V::CheckResult &c) {
  const V::Counterexample &cx = c.counterexamples.front();
  std::map<std::string, int64_t> params = paramsOf(cx);
  int64_t grid[3] = {1, 1, 1};
  const char *dims[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d)
    if (params.count(std::string("grid_dim.") + dims[d]))
      grid[d] = params[std::string("grid_dim.") + dims[d]];
  if (grid[0] * grid[1] * grid[2] > replayBlocks(f))
    return kTooLarge;
  Value dest = writeDestOf(c.siteOp);
  if (!dest)
    return "the reported op writes no tile";
  Operation *view = dest.getDefiningOp();
  while (view && isa<mlir::argus::TagOp, mlir::argus::TransposeOp>(view))
    view = view->getOperand(0).getDefiningOp();
  Value tensor;
  std::vector<int64_t> coords = cx.elements.front().globalCoords;
  if (auto vo = dyn_cast_or_null<mlir::argus::ViewOp>(view))
    tensor = vo.getTensor();
  else if (auto g = dyn_cast_or_null<mlir::argus::GatherViewOp>(view))
    tensor = g.getTensor(); // the row: a position of the index tensor
  else
    return "the written tile is not an argus.view or gather_view";
  int64_t arg = cast<BlockArgument>(tensor).getArgNumber();
  std::pair<int64_t, std::vector<int64_t>> key{arg, coords};
  size_t writers = 0;
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        params["block_id.x"] = x;
        params["block_id.y"] = y;
        params["block_id.z"] = z;
        auto r = ::argus::sim::simulate(f, params, {}, {}, 0, replaySteps(f));
        if (!r.ok)
          return "interpreter failed: " + r.error;
        auto it = r.globalWrites.find(key);
        if (it != r.globalWrites.end())
          writers += it->second.size();
      }
  if (c.kind == "output-once" && writers < 2)
    return "the element is written " + std::to_string(writers) +
           " time(s) concretely";
  if (c.kind == "output-coverage" && writers != 0)
    return "the element is written concretely";
  return "";
}

/// Replays one counterexample in the concrete interpreter; returns "" when
/// it exhibits the bug, else what went wrong.
std::string replay(func::FuncOp f, const V::CheckResult &c, int schedule = 0) {
  if (c.kind == "output-once" || c.kind == "output-coverage")
    return replayOutput(f, c);
  const V::Counterexample &cx = c.counterexamples.front();
  std::vector<int64_t> ivs;
  for (auto &[l, v] : cx.loops)
    ivs.push_back(v);
  std::vector<::argus::sim::Probe> probes;
  std::vector<::argus::sim::Event> watches;
  if (c.kind == "assert") {
    ::argus::sim::Probe p;
    p.assertOp = c.reportOp;
    p.ivs = ivs;
    for (const V::ElementInfo &e : cx.elements)
      p.coords[e.role] = e.tileCoords;
    probes.push_back(p);
  } else {
    ::argus::sim::Event w;
    w.kind = c.kind;
    w.op = c.siteOp;
    w.ivs = ivs;
    bool anyElem = c.kind == "non-injective-write";
    w.thread = anyElem ? -1 : cx.thread;
    if (!anyElem && !cx.elements.empty())
      w.coords = cx.elements.front().tileCoords;
    watches.push_back(w);
  }
  auto r = ::argus::sim::simulate(f, paramsOf(cx), probes, watches, 0,
                                  replaySteps(f), schedule);
  if (!r.ok)
    return "interpreter failed: " + r.error;
  if (c.kind == "assert") {
    if (r.probeHits == 0)
      return "the iteration of the counterexample is never reached";
    if (r.probeViolations == 0)
      return "the assertion holds concretely at the reported elements";
    return "";
  }
  if (r.watchHits.empty())
    return "the reported " + c.kind + " does not happen concretely";
  return "";
}

/// The schedules of the asynchronous model a replay or a clean run tries:
/// the producer first, the consumers first, two random interleavings.
constexpr int kSchedules = 4;

/// Replays a counterexample of an sm_90a kernel in the asynchronous model:
/// an assertion fails at the reported elements and iteration, an output
/// element is written twice or never (every block of the grid), or, for
/// the protocol checks, the run at the counterexample's arguments and block
/// shows a hazard under one of the schedules: a race (a read or write not
/// ordered by the barriers, fences and waits), a deadlock, a read of a
/// slot it already released, a release while a wgmma still reads the
/// stage, a phase completed by part of one arrive, a register read while a
/// wgmma writes it, an undrained bulk store, a reduction with an index
/// missing, an assertion failing at sampled elements.
std::string replayAsync(func::FuncOp f, const V::CheckResult &c,
                        std::string &shown) {
  if (c.kind == "output-once" || c.kind == "output-coverage")
    return replayOutput(f, c);
  const V::Counterexample &cx = c.counterexamples.front();
  std::string why = "no hazard under any schedule";
  for (int s = 0; s < kSchedules; ++s) {
    if (c.kind == "assert") {
      why = replay(f, c, s);
      if (why.empty())
        return "";
      continue;
    }
    auto r =
        ::argus::sim::simulate(f, paramsOf(cx), {}, {}, 8, replaySteps(f), s);
    // A hazard the run recorded is shown, also when it ended the run (an
    // mbarrier outside its ring).
    if (!r.counts.empty() || r.sampledViolations) {
      shown = r.hazards.empty() ? "assertion: " + r.lastViolation
                                : r.hazards.front();
      return "";
    }
    if (!r.ok)
      return "interpreter failed: " + r.error;
  }
  return why;
}

} // namespace

TEST_CASE("every example kernel is proved", "[verify][examples]") {
  auto files = mlirFiles(ARGUS_SOURCE_DIR "/examples");
  REQUIRE(!files.empty());
  for (const std::string &f : files) {
    INFO(f);
    auto m = load(f);
    REQUIRE(m);
    auto reports = V::verifyModule(*m, {});
    REQUIRE(!reports.empty());
    for (auto &k : reports)
      for (auto &c : k.checks) {
        INFO(c.kind << " at " << c.siteLocation << ": " << c.reason);
        CHECK(c.status == V::Status::Proved);
        // Not vacuous: each proof names an instance where it applies, and
        // its kind is a row of the check-kind table.
        CHECK(!c.witness.empty());
        CHECK(c.witness.find("not shown") != 0);
        CHECK(V::findCheckKind(c.kind));
      }
  }
}

TEST_CASE("example kernels run clean concretely", "[verify][examples][sim]") {
  std::vector<std::string> files = mlirFiles(ARGUS_SOURCE_DIR "/examples");
  for (const std::string &f : mlirFiles(ARGUS_SOURCE_DIR "/examples/sm90a"))
    files.push_back(f);
  for (const std::string &f : files) {
    INFO(f);
    auto m = load(f);
    REQUIRE(m);
    func::FuncOp k = kernelOf(*m);
    REQUIRE(k);
    std::map<std::string, int64_t> params = exampleParams(f, k);
    // The asynchronous model under every schedule tried.
    int schedules = ::argus::sim::isAsyncKernel(k) ? kSchedules : 1;
    for (int s = 0; s < schedules; ++s) {
      INFO("schedule " << s);
      auto r = ::argus::sim::simulate(k, params, {}, {}, 64, 1 << 16, s);
      INFO(r.error);
      REQUIRE(r.ok);
      std::string hazards;
      for (const std::string &h : r.hazards)
        hazards += h + "\n";
      INFO(hazards);
      CHECK(r.counts.empty());
      CHECK(r.sampled > 0);
      INFO(r.lastViolation);
      CHECK(r.sampledViolations == 0);
    }
  }
}

// Not run by default: the verifier against the concrete model on mutants
// of the examples (files name@N.mlir in $ARGUS_MUTANTS, made by
// test/fuzz/mutate_sm90a.py) at the examples' arguments, or those
// $ARGUS_MUTANT_PARAMS sets. A mutant the verifier proves must run clean;
// one that shows a hazard is a false proof. Prints one line per mutant.
TEST_CASE("mutants: no proof of a kernel that shows a hazard", "[.mutants]") {
  const char *dir = getenv("ARGUS_MUTANTS");
  REQUIRE(dir);
  for (const std::string &f : mlirFiles(dir)) {
    INFO(f);
    auto m = load(f);
    if (!m) {
      llvm::errs() << llvm::sys::path::filename(f) << " invalid\n";
      continue;
    }
    func::FuncOp k = kernelOf(*m);
    auto reports = V::verifyModule(*m, {});
    std::string verdict = "proved";
    for (auto &rep : reports)
      for (auto &c : rep.checks)
        if (c.status == V::Status::Violated)
          verdict = "violated";
        else if (c.status == V::Status::Unknown && verdict == "proved")
          verdict = "unknown";
    // $ARGUS_MUTANT_PARAMS (name=value,...) overrides the arguments.
    std::map<std::string, int64_t> params = exampleParams(f, k);
    if (const char *over = getenv("ARGUS_MUTANT_PARAMS")) {
      llvm::SmallVector<llvm::StringRef> items;
      llvm::StringRef(over).split(items, ',', -1, false);
      for (llvm::StringRef item : items) {
        auto [name, value] = item.split('=');
        params[name.str()] = std::stoll(value.str());
      }
    }
    std::string shown = "clean";
    for (int s = 0; s < kSchedules && shown == "clean"; ++s) {
      auto r = ::argus::sim::simulate(k, params, {}, {}, 16, 1 << 12, s);
      if (!r.ok)
        shown = "not run: " + r.error;
      else if (!r.hazards.empty())
        shown = r.hazards.front();
      else if (r.sampledViolations)
        shown = "assertion: " + r.lastViolation;
    }
    llvm::errs() << llvm::sys::path::filename(f) << " " << verdict << " | "
                 << shown << "\n";
    CHECK(!(verdict == "proved" && shown != "clean" &&
            shown.rfind("not run", 0) != 0));
  }
}

TEST_CASE("every sm_90a bug shows concretely", "[verify][bugs][sim][sm90a]") {
  // Reported by the verifier, harmless in every run: the consumers restart
  // their slab counter per work item, but an item is 64 slabs (K = 4096, a
  // static size of X), a whole number of rounds of both parities of the
  // 4-stage ring, so the restarted counter names the same stage and parity
  // as the producer's. The verifier reads slots by the counter's value.
  const std::set<std::string> notShown = {"moe_persistent_ring_restarts.mlir"};
  auto files = mlirFiles(ARGUS_SOURCE_DIR "/test/lit/Verify/bugs-sm90a");
  REQUIRE(files.size() >= 70);
  // A counterexample past the replay's budget (the verifier does not always
  // find small arguments: a persistent MoE's work list of 8192 items) counts
  // as not shown, against the threshold below, not as a failure.
  int shownFiles = 0, tooLarge = 0;
  for (const std::string &f : files) {
    std::string base = llvm::sys::path::filename(f).str();
    INFO(base);
    auto m = load(f);
    REQUIRE(m);
    auto reports = V::verifyModule(*m, {});
    func::FuncOp k = kernelOf(*m);
    std::string why = "no violated check", shown;
    for (auto &rep : reports)
      for (auto &c : rep.checks)
        if (c.status == V::Status::Violated && !why.empty()) {
          REQUIRE(!c.counterexamples.empty());
          why = replayAsync(k, c, shown);
          if (why.empty())
            shown = c.kind + " shown concretely: " + shown;
        }
    INFO(why);
    INFO(shown);
    if (why == kTooLarge || why.find("step limit") != std::string::npos) {
      ++tooLarge;
      continue;
    }
    CHECK(why.empty() != notShown.count(base));
    shownFiles += why.empty();
  }
  INFO(tooLarge << " counterexample(s) too large to replay");
  CHECK(shownFiles + notShown.size() + 4 >= files.size());
}

TEST_CASE("every bug of the corpus is violated and replays concretely",
          "[verify][bugs][sim]") {
  auto files = mlirFiles(ARGUS_SOURCE_DIR "/test/lit/Verify/bugs");
  REQUIRE(files.size() >= 20);
  for (const std::string &f : files) {
    INFO(f);
    auto m = load(f);
    REQUIRE(m);
    auto reports = V::verifyModule(*m, {});
    func::FuncOp k = kernelOf(*m);
    int violated = 0;
    for (auto &rep : reports)
      for (auto &c : rep.checks) {
        if (c.status != V::Status::Violated)
          continue;
        ++violated;
        REQUIRE(!c.counterexamples.empty());
        INFO(c.kind << " at " << c.siteLocation);
        CHECK(replay(k, c) == "");
      }
    CHECK(violated > 0);
  }
}

TEST_CASE("unsupported index arithmetic is unknown, never proved",
          "[verify][unknown]") {
  auto m = parse(R"mlir(
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
func.func @k(%C: memref<?x?xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %bx = gpu.block_id x
  %m0 = arith.muli %bx, %N : index
  %z = argus.fill 0.0 : !argus.tile<64x4xf32, register, "(64,4):(1,64)">
  %t = argus.tag %z [%m0, %m0] ["m", "n"] = #Coord : !argus.tile<64x4xf32, register, "(64,4):(1,64)">
  %g = argus.view "C" %C[%m0, %m0] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  %gt = argus.tag %g [%m0, %m0] ["m", "n"] = #Coord : !argus.tile<64x4xf32, global>
  argus.store %t, %gt : !argus.tile<64x4xf32, register, "(64,4):(1,64)">, !argus.tile<64x4xf32, global>
  argus.tag_assert "value.m == dest.m"
  return
}
)mlir");
  REQUIRE(m);
  auto reports = V::verifyModule(*m, {});
  REQUIRE(reports.size() == 1);
  // The product of two symbolic values is modelled; that it stays in the
  // verifier's index range is an obligation it cannot prove for every
  // argument: reported unknown with the assumption named, never assumed.
  bool sawAssert = false, sawRange = false;
  for (auto &c : reports[0].checks) {
    if (c.kind == "assert") {
      sawAssert = true;
      CHECK(c.status == V::Status::Proved);
    }
    if (c.kind == "index-range") {
      sawRange = true;
      CHECK(c.status == V::Status::Unknown);
      CHECK(c.reason.find("the verifier assumes") != std::string::npos);
    }
  }
  CHECK(sawAssert);
  CHECK(sawRange);
}

TEST_CASE("argus.assume bounds the arguments: products proved in range",
          "[verify][assume]") {
  auto m = parse(R"mlir(
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
func.func @k(%C: memref<?x?xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c1024 = arith.constant 1024 : index
  %n_ok = arith.cmpi ule, %N, %c1024 : index
  argus.assume %n_ok, "N <= 1024"
  %bx = gpu.block_id x
  %b_ok = arith.cmpi ult, %bx, %c1024 : index
  argus.assume %b_ok, "at most 1024 blocks"
  %m0 = arith.muli %bx, %N : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %d0 = memref.dim %C, %c0 : memref<?x?xf32>
  %d1 = memref.dim %C, %c1 : memref<?x?xf32>
  %e0 = arith.addi %m0, %c64 : index
  %e1 = arith.addi %m0, %c4 : index
  %in0 = arith.cmpi ule, %e0, %d0 : index
  %in1 = arith.cmpi ule, %e1, %d1 : index
  %in = arith.andi %in0, %in1 : i1
  argus.assume %in, "C holds the block's tile"
  %z = argus.fill 0.0 : !argus.tile<64x4xf32, register, "(64,4):(1,64)">
  %t = argus.tag %z [%m0, %m0] ["m", "n"] = #Coord : !argus.tile<64x4xf32, register, "(64,4):(1,64)">
  %g = argus.view "C" %C[%m0, %m0] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  %gt = argus.tag %g [%m0, %m0] ["m", "n"] = #Coord : !argus.tile<64x4xf32, global>
  argus.store %t, %gt : !argus.tile<64x4xf32, register, "(64,4):(1,64)">, !argus.tile<64x4xf32, global>
  argus.tag_assert "value.m == dest.m"
  return
}
)mlir");
  REQUIRE(m);
  auto reports = V::verifyModule(*m, {});
  REQUIRE(reports.size() == 1);
  for (auto &c : reports[0].checks) {
    INFO(c.kind << ": " << c.reason);
    // The blocks' tiles overlap (N may be 1) and leave most of C unwritten:
    // the output checks are not proved (output-once is violated; which
    // block writes a diagonal element is not solvable from one offset, so
    // output-coverage may stay unknown); everything else is proved.
    if (c.kind == "output-once")
      CHECK(c.status == V::Status::Violated);
    else if (c.kind == "output-coverage")
      CHECK(c.status != V::Status::Proved);
    else
      CHECK(c.status == V::Status::Proved);
  }
  // The report names the preconditions it relied on.
  bool named = false;
  for (auto &a : reports[0].assumptions)
    named |= a.find("N <= 1024") != std::string::npos;
  CHECK(named);
}

TEST_CASE("a store assertion is violated with thread and element",
          "[verify][cex]") {
  auto m = parse(R"mlir(
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
func.func @k(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = argus.fill 0.0 : !argus.tile<64x4xf32, register, "(64,4):(1,64)">
  %t = argus.tag %z [%c0, %c0] ["m", "n"] = #Coord : !argus.tile<64x4xf32, register, "(64,4):(1,64)">
  %g = argus.view "C" %C[%c0, %c1] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  %gt = argus.tag %g [%c0, %c1] ["m", "n"] = #Coord : !argus.tile<64x4xf32, global>
  argus.store %t, %gt : !argus.tile<64x4xf32, register, "(64,4):(1,64)">, !argus.tile<64x4xf32, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}
)mlir");
  REQUIRE(m);
  auto reports = V::verifyModule(*m, {});
  REQUIRE(reports.size() == 1);
  // The premises come first (proved), then the assertion.
  REQUIRE(reports[0].checks.front().kind == "assumptions");
  auto it =
      std::find_if(reports[0].checks.begin(), reports[0].checks.end(),
                   [](const V::CheckResult &r) { return r.kind == "assert"; });
  REQUIRE(it != reports[0].checks.end());
  const V::CheckResult &c = *it;
  REQUIRE(c.status == V::Status::Violated);
  const V::Counterexample &cx = c.counterexamples.front();
  // The holder of the value element is the thread the layout says.
  REQUIRE(cx.elements.size() == 2);
  for (auto &e : cx.elements)
    if (e.role == "value") {
      CHECK(e.thread == e.tileCoords[0]);
      CHECK(e.slot == e.tileCoords[1]);
      CHECK(e.tags.at("n") == e.tileCoords[1]);
    } else {
      CHECK(e.tags.at("n") == e.tileCoords[1] + 1);
      CHECK(e.globalCoords ==
            std::vector<int64_t>{e.tileCoords[0], e.tileCoords[1] + 1});
    }
  CHECK(cx.warp == cx.thread / 64);
  CHECK(cx.lane == cx.thread % 64);
  // The JSON report carries the same.
  std::string json;
  llvm::raw_string_ostream os(json);
  os << V::toJSON(reports);
  CHECK(json.find("\"status\":\"violated\"") != std::string::npos);
  CHECK(json.find("\"replay\":\"confirmed\"") != std::string::npos);
}

namespace {
/// A kernel whose A view sits at [%m0, OFFSET] with the tag [%m0, %k0].
std::string movedViewKernel(const std::string &offset) {
  return R"mlir(
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
func.func @k(%A: memref<?x?xf16>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c32 : index
  scf.for %kt = %c0 to %K step %c1 {
    %k0 = arith.muli %kt, %c32 : index
    %k1 = arith.addi %k0, %c32 : index
    %g = argus.view "A" %A[%m0, )mlir" +
         offset + R"mlir(] : memref<?x?xf16> -> !argus.tile<32x16xf16, global>
    %t = argus.tag %g [%m0, %k0] ["m", "k"] = #Coord : !argus.tile<32x16xf16, global>
  }
  return
}
)mlir";
}

const V::CheckResult *findCheck(const V::KernelReport &k,
                                const std::string &kind) {
  for (auto &c : k.checks)
    if (c.kind == kind)
      return &c;
  return nullptr;
}
} // namespace

TEST_CASE("a global view's tag is checked against the view's offsets",
          "[verify][views]") {
  auto ok = parse(movedViewKernel("%k0"));
  REQUIRE(ok);
  auto okReports = V::verifyModule(*ok, {});
  REQUIRE(okReports.size() == 1);
  const V::CheckResult *proved = findCheck(okReports[0], "view-tag");
  REQUIRE(proved);
  INFO(proved->reason);
  CHECK(proved->status == V::Status::Proved);

  auto bad = parse(movedViewKernel("%k1"));
  REQUIRE(bad);
  auto reports = V::verifyModule(*bad, {});
  REQUIRE(reports.size() == 1);
  const V::CheckResult *c = findCheck(reports[0], "view-tag");
  REQUIRE(c);
  INFO(c->reason);
  REQUIRE(c->status == V::Status::Violated);
  const V::Counterexample &cx = c->counterexamples.front();
  REQUIRE(cx.loops.size() == 1);
  REQUIRE(cx.elements.size() == 2);
  const V::ElementInfo &tag = cx.elements[0], &want = cx.elements[1];
  CHECK(tag.role == "tag");
  CHECK(want.role == "expected");
  CHECK(tag.memory == "A");
  int64_t by = cx.blockIds.count("y") ? cx.blockIds.at("y") : 0;
  int64_t kt = cx.loops[0].second;
  int64_t m0 = 32 * by, k0 = 32 * kt, k1 = k0 + 32;
  // Global coordinate = the view's offsets + the tile coordinate.
  REQUIRE(tag.tileCoords.size() == 2);
  CHECK(tag.globalCoords ==
        std::vector<int64_t>{m0 + tag.tileCoords[0], k1 + tag.tileCoords[1]});
  // The tag is the map at the tile coordinate; the expected value is the
  // map at the global coordinate with %m0 (an offset) at 0 and %k0 kept.
  CHECK(tag.tags.at("m") == m0 + tag.tileCoords[0]);
  CHECK(tag.tags.at("k") == k0 + tag.tileCoords[1]);
  CHECK(want.tags.at("m") == tag.globalCoords[0]);
  CHECK(want.tags.at("k") == tag.globalCoords[1] + k0);
  CHECK(want.tags.at("k") != tag.tags.at("k"));
  bool viewNote = false;
  for (auto &n : cx.notes)
    viewNote |= n.find("view 'argus.view' at") != std::string::npos &&
                n.find("; tag 'argus.tag' at") != std::string::npos;
  CHECK(viewNote);
  // The concrete interpreter sees the same disagreement there.
  CHECK(replay(kernelOf(*bad), *c) == "");
}

TEST_CASE("global accesses stay inside the tensor's sizes",
          "[verify][bounds][sim]") {
  // A bias of N entries read at column n0 + 1: the last block column reads
  // one past the end. With n0 it is proved under N = 64 * grid_dim.x.
  auto kernel = [](const std::string &shift) {
    return R"mlir(
func.func @k(%bias: memref<?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %n0 = arith.muli %bx, %c64 : index
  %n = arith.muli %gx, %c64 : index
  %size = memref.dim %bias, %c0 : memref<?xf32>
  %ok = arith.cmpi eq, %size, %n : index
  argus.assume %ok, "bias has 64 * grid_dim.x entries"
  %n1 = arith.addi %n0, )mlir" +
           shift + R"mlir( : index
  %g = argus.view "bias" %bias[%n1] : memref<?xf32> -> !argus.tile<64xf32, global>
  %r = argus.load %g : !argus.tile<64xf32, global> -> !argus.tile<64xf32, register, "(64,1):(1,0)">
  return
}
)mlir";
  };
  auto ok = parse(kernel("%c0"));
  REQUIRE(ok);
  auto okReports = V::verifyModule(*ok, {});
  const V::CheckResult *proved = findCheck(okReports[0], "out-of-bounds");
  REQUIRE(proved);
  INFO(proved->reason);
  CHECK(proved->status == V::Status::Proved);

  auto bad = parse(kernel("%c1"));
  REQUIRE(bad);
  auto reports = V::verifyModule(*bad, {});
  const V::CheckResult *c = findCheck(reports[0], "out-of-bounds");
  REQUIRE(c);
  INFO(c->reason);
  REQUIRE(c->status == V::Status::Violated);
  const V::Counterexample &cx = c->counterexamples.front();
  std::map<std::string, int64_t> p = paramsOf(cx);
  REQUIRE(p.count("arg0.dim0"));
  REQUIRE(p.count("grid_dim.x"));
  int64_t bx = cx.blockIds.count("x") ? cx.blockIds.at("x") : 0;
  // The last block column, thread 63: bias[64 * grid_dim.x].
  CHECK(p["arg0.dim0"] == 64 * p["grid_dim.x"]);
  CHECK(bx == p["grid_dim.x"] - 1);
  REQUIRE(cx.elements.size() == 1);
  CHECK(cx.elements[0].tileCoords == std::vector<int64_t>{63});
  CHECK(cx.elements[0].globalCoords == std::vector<int64_t>{64 * bx + 1 + 63});
  CHECK(cx.thread == 63);
  CHECK(replay(kernelOf(*bad), *c) == "");
  // The interpreter does not see it in the correct kernel.
  auto r = ::argus::sim::simulate(kernelOf(*ok), p, {}, {}, 0);
  REQUIRE(r.ok);
  CHECK(r.counts.count("out-of-bounds") == 0);
}

TEST_CASE("view names and tensor arguments correspond one to one",
          "[verify][views]") {
  auto m = parse(R"mlir(
func.func @k(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %a = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  %b = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  %c = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  %d = argus.view "Y" %X[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  return
}
)mlir");
  REQUIRE(m);
  auto reports = V::verifyModule(*m, {});
  REQUIRE(reports.size() == 1);
  std::vector<V::Status> st;
  const V::CheckResult *bad = nullptr;
  for (auto &c : reports[0].checks)
    if (c.kind == "tensor-name") {
      st.push_back(c.status);
      if (c.status == V::Status::Violated)
        bad = &c;
    }
  // Reusing a name for its own tensor is fine; "Y" for %X is not (one name,
  // two tensors, and one tensor, two names).
  CHECK(st == std::vector<V::Status>{V::Status::Proved, V::Status::Proved,
                                     V::Status::Proved, V::Status::Violated});
  REQUIRE(bad);
  const V::Counterexample &cx = bad->counterexamples.front();
  REQUIRE(cx.notes.size() == 3);
  CHECK(cx.notes[1].find("one name for two tensors") != std::string::npos);
  CHECK(cx.notes[2].find("two names for one tensor") != std::string::npos);
  CHECK(replay(kernelOf(*m), *bad) == "");
}

namespace {
/// An elementwise kernel whose single assumption is `cond` (IR text over
/// %A, %N, %gx, %d = dim 0 of %A and %big1 = big + 1: a value the model's
/// constants can state for big + 1 = 2^23 too).
std::string premiseKernel(const std::string &cond, int64_t big) {
  return R"mlir(
!G = !argus.tile<128xf32, global>
!R = !argus.tile<128xf32, register, "(128,1):(1,128)">
func.func @k(%A: memref<?xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %big = arith.constant )mlir" +
         std::to_string(big) + R"mlir( : index
  %c1 = arith.constant 1 : index
  %big1 = arith.addi %big, %c1 : index
  %gx = gpu.grid_dim x
  %bx = gpu.block_id x
  %d = memref.dim %A, %c0 : memref<?xf32>
  %p = )mlir" +
         cond +
         R"mlir(
  argus.assume %p, "the premise"
  %ga = argus.view "A" %A[%c0] : memref<?xf32> -> !G
  %r = argus.load %ga : !G -> !R
  argus.store %r, %ga : !R, !G
  return
}
)mlir";
}

const V::CheckResult *findKind(const std::vector<V::KernelReport> &reports,
                               const std::string &kind) {
  for (auto &rep : reports)
    for (auto &c : rep.checks)
      if (c.kind == kind)
        return &c;
  return nullptr;
}
} // namespace

TEST_CASE("assumptions outside each of the model's ranges are violated, never "
          "a vacuous proof",
          "[verify][premises]") {
  // One limit each (ModelLimits.h): at the first value outside the range
  // the premise is violated and no other check runs; just inside it, the
  // premise is proved with a witness launch.
  struct Case {
    const char *what, *cond;
    int64_t outside, inside;
    const char *limit;
  };
  const Case cases[] = {
      {"grid", "arith.cmpi eq, %gx, %big1 : index", V::kGridBound,
       V::kGridBound - 1, "model limit: grid_dim.x in [1, 65536)"},
      {"argument", "arith.cmpi eq, %N, %big1 : index", V::kScalarBound,
       V::kScalarBound - 1, "model limit: arg1 in [1, 65536)"},
      // 2^23 is also past the index range of the assumption's own sum: the
      // core names one limit or the other.
      {"size", "arith.cmpi eq, %d, %big1 : index", V::kSizeBound,
       V::kSizeBound - 1, "model limit: "},
  };
  for (const Case &c : cases) {
    INFO(c.what);
    auto bad = parse(premiseKernel(c.cond, c.outside - 1));
    REQUIRE(bad);
    auto reports = V::verifyModule(*bad, {});
    REQUIRE(reports.size() == 1);
    REQUIRE(reports[0].checks.size() == 1);
    const V::CheckResult &p = reports[0].checks[0];
    CHECK(p.kind == "assumptions");
    CHECK(p.status == V::Status::Violated);
    REQUIRE(!p.counterexamples.empty());
    std::string notes;
    for (auto &n : p.counterexamples[0].notes)
      notes += n + "\n";
    // (For the size, 2^23 - 1 + 1 leaves the index range by itself.)
    if (std::string(c.what) != "size")
      CHECK(notes.find("conflicting: argus.assume \"the premise\"") !=
            std::string::npos);
    CHECK(notes.find(c.limit) != std::string::npos);
    CHECK(V::summarize(reports) == V::Outcome::Violated);

    auto good = parse(premiseKernel(c.cond, c.inside - 1));
    REQUIRE(good);
    auto ok = V::verifyModule(*good, {});
    const V::CheckResult *q = findKind(ok, "assumptions");
    REQUIRE(q);
    CHECK(q->status == V::Status::Proved);
    CHECK(q->witness.find(std::to_string(c.inside)) != std::string::npos);
    CHECK(ok[0].checks.size() > 1);
  }
}

TEST_CASE("every proved check has a witness, and a dead site is unknown",
          "[verify][premises]") {
  auto m = parse(R"mlir(
!G = !argus.tile<128xf32, global>
!R = !argus.tile<128xf32, register, "(128,1):(1,128)">
func.func @k(%A: memref<128xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %small = arith.cmpi ult, %N, %c8 : index
  argus.assume %small, "N below 8"
  %ga = argus.view "A" %A[%c0] : memref<128xf32> -> !G
  %r = argus.load %ga : !G -> !R
  %never = arith.cmpi ugt, %N, %c8 : index
  scf.if %never {
    argus.store %r, %ga : !R, !G
  }
  scf.for %i = %c0 to %N step %c8 {
    argus.store %r, %ga : !R, !G
  }
  return
}
)mlir");
  REQUIRE(m);
  auto reports = V::verifyModule(*m, {});
  int vacuous = 0, witnessed = 0;
  for (auto &c : reports[0].checks) {
    INFO(c.kind << " at " << c.siteLocation << ": " << c.reason);
    if (c.status == V::Status::Proved) {
      CHECK(!c.witness.empty());
      witnessed += c.witness.find("reached at") == 0;
    }
    if (c.reason.find("vacuous") == 0) {
      ++vacuous;
      // Only the store in the branch no launch takes.
      CHECK(c.siteLocation.find(":14:") != std::string::npos);
    }
  }
  CHECK(vacuous > 0);
  CHECK(witnessed > 0); // the loop's store: N = 1..7 runs it once
}

TEST_CASE("an op outside the model makes every check unknown",
          "[verify][premises]") {
  auto m = parse(R"mlir(
!G = !argus.tile<128xf32, global>
!R = !argus.tile<128xf32, register, "(128,1):(1,128)">
func.func @k(%A: memref<128xf32>, %B: memref<128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %ga = argus.view "A" %A[%c0] : memref<128xf32> -> !G
  %r = argus.load %ga : !G -> !R
  %gb = argus.view "B" %B[%c0] : memref<128xf32> -> !G
  argus.store %r, %gb : !R, !G
  memref.store %f, %B[%c0] : memref<128xf32>
  return
}
)mlir");
  REQUIRE(m);
  auto reports = V::verifyModule(*m, {});
  int unknown = 0;
  for (auto &c : reports[0].checks) {
    if (c.kind == "assumptions")
      continue;
    INFO(c.kind);
    CHECK(c.status == V::Status::Unknown);
    CHECK(c.reason.find("not modelled: 'memref.store'") == 0);
    ++unknown;
  }
  CHECK(unknown > 0);
  bool listed = false;
  for (auto &u : reports[0].unchecked)
    listed |= u.find("memref.store") != std::string::npos;
  CHECK(listed);
}

TEST_CASE("every reported kind is a row of the check-kind table",
          "[verify][premises]") {
  for (const V::CheckKind &k : V::checkKinds()) {
    INFO(k.name);
    CHECK(V::findCheckKind(k.name) == &k);
    CHECK(std::string(k.meaning).size() > 10);
    CHECK(std::string(k.models).size() > 5);
  }
  CHECK(V::findCheckKind("no-such-kind") == nullptr);
}
