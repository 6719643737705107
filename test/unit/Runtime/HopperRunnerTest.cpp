//===- HopperRunnerTest.cpp - TMA, cluster, sms, smem through the fake ----===//
//
// End-to-end runs against FakeCuda.cpp; what the runtime handed the driver
// is read back from the fake's records (FakeCuda.h).
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "argus/runtime/Error.h"
#include "argus/runtime/Runner.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>

using namespace argus::rt;

namespace {
std::string tmp(const std::string &name) {
  return std::string(ARGUS_TEST_TMPDIR) + "/" + name;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

std::unique_ptr<Device> fakeDevice() {
  DeviceOptions o;
  o.cudaLibraries = {ARGUS_FAKE_CUDA_LIB};
  o.hipLibraries = {};
  return openDevice(o);
}

/// The fake driver's records; dlopen of the same path shares its state
/// with the Device's handle (and keeps the library loaded).
struct FakeRecords {
  ArgusFakeEncode *encode = nullptr;
  ArgusFakeLaunch *launch = nullptr;
  FakeRecords() {
    void *h = dlopen(ARGUS_FAKE_CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(h);
    encode = static_cast<ArgusFakeEncode *>(dlsym(h, "argusFakeEncode"));
    launch = static_cast<ArgusFakeLaunch *>(dlsym(h, "argusFakeLaunch"));
    REQUIRE(encode);
    REQUIRE(launch);
  }
};

LaunchSpec parse(const std::string &text) {
  return parseLaunchSpec(parseJson(text), ARGUS_TEST_TMPDIR);
}

/// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char *n, const char *v) : name(n) { setenv(n, v, 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

/// A [32, 64] f16 input with known contents, as an init file.
std::vector<uint8_t> writeInput() {
  std::vector<uint8_t> a(32 * 64 * 2);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<uint8_t>(i * 37 + 11);
  std::ofstream f(tmp("tma_in.bin"), std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char *>(a.data()),
          static_cast<std::streamsize>(a.size()));
  return a;
}

std::string tmaSpec(const char *module, const char *pass) {
  return std::string(R"({"module": ")") + module +
         R"(", "kernel": "fake_tma_copy",
    "grid": [2, 1], "block": [128], "shared_mem": 65536,
    "args": [
      {"name": "A", "dtype": "f16", "shape": [32, 64], "param": false,
       "init": {"file": "tma_in.bin"}},
      {"name": "tmA", "kind": "tensor_map", "buffer": "A", "box": [16, 64],
       "swizzle": 128, "pass": ")" +
         pass + R"("},
      {"name": "out", "dtype": "f16", "shape": [32, 64], "role": "output",
       "save": "tma_out.bin"}],
    "warmup": 1, "repetitions": 3})";
}
} // namespace

TEST_CASE("a tensor map passed by value", "[runner][hopper]") {
  FakeRecords rec;
  std::vector<uint8_t> in = writeInput();
  writeFile(tmp("tma_val.ptx"),
            "// fake-ok\n.visible .entry fake_tma_copy(.param .align 64 .b8 "
            "tm[128], .param .u64 out)\n");
  auto dev = fakeDevice();
  const int encodes = rec.encode->calls;
  const uint64_t seen = rec.launch->mapsSeen;
  RunResult r = runSpec(*dev, parse(tmaSpec("tma_val.ptx", "value")));
  // Encoded once, innermost first: 64 columns of 128 bytes, 32 rows.
  const ArgusFakeEncode &e = *rec.encode;
  CHECK(e.calls == encodes + 1);
  CHECK(e.dataType == 6);
  CHECK(e.rank == 2);
  CHECK(e.globalDim[0] == 64);
  CHECK(e.globalDim[1] == 32);
  CHECK(e.globalStrides[0] == 128);
  CHECK(e.boxDim[0] == 64);
  CHECK(e.boxDim[1] == 16);
  CHECK(e.elementStrides[0] == 1);
  CHECK(e.elementStrides[1] == 1);
  CHECK(e.interleave == 0);
  CHECK(e.swizzle == 3);
  CHECK(e.l2Promotion == 2);
  CHECK(e.oobFill == 0);
  CHECK(e.mapAddress % 64 == 0);
  // The kernel's first parameter was the 128-byte map itself.
  const ArgusFakeLaunch &l = *rec.launch;
  CHECK(l.param0Size == 128);
  uint64_t q[16];
  std::memcpy(q, l.param0, sizeof(q));
  CHECK(q[0] == kArgusFakeMapMagic);
  CHECK(q[1] == e.globalAddress);
  CHECK(q[2] == 2);
  CHECK(q[3] == 64);
  CHECK(q[4] == 32);
  CHECK(q[8] == 64);
  CHECK(q[9] == 16);
  CHECK(l.mapsSeen == seen + 1 + 3 + 1); // warm-up, repetitions, check
  // 64 KiB of dynamic shared memory was opted into.
  CHECK(l.maxDynamicSmem == 65536);
  CHECK(l.sharedMem == 65536);
  // The map led the kernel to A: out is a copy of it.
  CHECK(readBytes(tmp("tma_out.bin")) == in);
  const Json &tm = r.report.at("kernel").at("tensor_maps");
  REQUIRE(tm.size() == 1);
  CHECK(tm[0].at("arg").get<int64_t>() == 1);
  CHECK(tm[0].at("buffer").get<int64_t>() == 0);
  CHECK(tm[0].at("pass").get<std::string>() == "value");
  CHECK(tm[0].at("swizzle").get<int64_t>() == 128);
}

TEST_CASE("a tensor map passed by device pointer", "[runner][hopper]") {
  FakeRecords rec;
  std::vector<uint8_t> in = writeInput();
  writeFile(tmp("tma_ptr.ptx"), "// fake-ok\n.visible .entry fake_tma_copy("
                                ".param .u64 tm, .param .u64 out)\n");
  auto dev = fakeDevice();
  const uint64_t seen = rec.launch->mapsSeen;
  runSpec(*dev, parse(tmaSpec("tma_ptr.ptx", "pointer")));
  const ArgusFakeLaunch &l = *rec.launch;
  CHECK(l.param0Size == 8);
  uint64_t p = 0;
  std::memcpy(&p, l.param0, 8);
  CHECK(p != 0);
  CHECK(p % 64 == 0);
  CHECK(p != rec.encode->globalAddress); // a copy of the map, not A
  CHECK(l.mapsSeen == seen + 5);
  CHECK(readBytes(tmp("tma_out.bin")) == in);

  // A second run allocates afresh; its map must point at the new A (the
  // fake fails with CUDA_ERROR_ILLEGAL_ADDRESS on a freed address).
  std::remove(tmp("tma_out.bin").c_str());
  const int encodes = rec.encode->calls;
  runSpec(*dev, parse(tmaSpec("tma_ptr.ptx", "pointer")));
  CHECK(rec.encode->calls == encodes + 1);
  CHECK(readBytes(tmp("tma_out.bin")) == in);
}

TEST_CASE("a failing encode names the argument and the CUresult",
          "[runner][hopper]") {
  writeInput();
  writeFile(tmp("tma_val.ptx"),
            "// fake-ok\n.visible .entry fake_tma_copy(.param .align 64 .b8 "
            "tm[128], .param .u64 out)\n");
  auto dev = fakeDevice();
  ScopedEnv fail("ARGUS_FAKE_CUDA_FAIL_ENCODE", "1");
  try {
    runSpec(*dev, parse(tmaSpec("tma_val.ptx", "value")));
    FAIL("failed encode accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Launch);
    std::string m = e.what();
    CHECK(m.find("argument 1 ('tmA')") != std::string::npos);
    CHECK(m.find("cuTensorMapEncodeTiled failed") != std::string::npos);
    CHECK(m.find("CUDA_ERROR_INVALID_VALUE") != std::string::npos);
  }
}

TEST_CASE("cluster launches go through cuLaunchKernelEx", "[runner][hopper]") {
  FakeRecords rec;
  writeFile(tmp("noop.ptx"), "// fake-ok\n.visible .entry noop()\n");
  auto dev = fakeDevice();
  const char *spec = R"({"module": "noop.ptx", "kernel": "noop",
    "grid": [8, 2], "block": [128], "cluster": [2, 1, 1],
    "args": [], "warmup": 1, "repetitions": 2})";
  int calls = rec.launch->calls, ex = rec.launch->exCalls;
  RunResult r = runSpec(*dev, parse(spec));
  CHECK(rec.launch->exCalls == ex + 4);
  CHECK(rec.launch->calls == calls);
  CHECK(rec.launch->numAttrs == 1);
  CHECK(rec.launch->cluster[0] == 2);
  CHECK(rec.launch->cluster[1] == 1);
  CHECK(rec.launch->cluster[2] == 1);
  CHECK(rec.launch->grid[0] == 8);
  CHECK(rec.launch->grid[1] == 2);
  const Json &cl = r.report.at("kernel").at("cluster");
  REQUIRE(cl.is_array());
  CHECK(cl[0].get<int64_t>() == 2);
  CHECK(formatSummary(parse(spec), r).find("cluster 2x1x1") !=
        std::string::npos);

  // No cluster, or [1, 1, 1]: the plain cuLaunchKernel.
  std::string plain = spec;
  plain.replace(plain.find("[2, 1, 1]"), 9, "[1, 1, 1]");
  calls = rec.launch->calls;
  ex = rec.launch->exCalls;
  RunResult rp = runSpec(*dev, parse(plain));
  CHECK(rec.launch->calls == calls + 4);
  CHECK(rec.launch->exCalls == ex);
  CHECK(rp.report.at("kernel").at("cluster").is_null());
}

TEST_CASE("\"sms\" grids resolve on the device, probes included",
          "[runner][hopper]") {
  FakeRecords rec;
  writeFile(tmp("noop_p.ptx"),
            "// fake-ok\n.visible .entry noop(.param .u64 probes)\n");
  auto dev6 = [] {
    ScopedEnv sms("ARGUS_FAKE_CUDA_SMS", "6");
    return fakeDevice();
  }();
  CHECK(dev6->limits().multiprocessors == 6);
  const char *spec = R"({"module": "noop_p.ptx", "kernel": "noop",
    "grid": ["sms"], "block": [128], "cluster": [4],
    "args": [], "probes": {"capacity_per_warp": 2},
    "warmup": 0, "repetitions": 1})";
  RunResult r = runSpec(*dev6, parse(spec));
  // 6 SMs rounded down to whole clusters of 4.
  CHECK(r.launch.grid[0] == 4);
  CHECK(rec.launch->grid[0] == 4);
  CHECK(rec.launch->cluster[0] == 4);
  const Json &k = r.report.at("kernel");
  CHECK(k.at("grid")[0].get<int64_t>() == 4);
  CHECK(k.at("grid_spec")[0].get<std::string>() == "sms");
  const Json &hdr = r.report.at("probes").at("buffer").at("header");
  CHECK(hdr.at("num_slots").get<int64_t>() == 4 * 4); // blocks x warps
  std::string summary = formatSummary(parse(spec), r);
  CHECK(summary.find("grid 4x1x1 (sms) cluster 4x1x1") != std::string::npos);

  // Without a cluster, all 4 SMs of the default fake.
  auto dev = fakeDevice();
  RunResult r4 = runSpec(*dev, parse(R"({"module": "noop_p.ptx",
    "kernel": "noop", "grid": ["sms", 3], "block": [64], "args": [],
    "probes": {"capacity_per_warp": 2}, "repetitions": 1})"));
  CHECK(r4.launch.grid[0] == 4);
  CHECK(r4.launch.grid[1] == 3);
  CHECK(r4.report.at("probes")
            .at("buffer")
            .at("header")
            .at("num_slots")
            .get<int64_t>() == 4 * 3 * 2);
}

TEST_CASE("dynamic shared memory up to the opt-in maximum",
          "[runner][hopper]") {
  FakeRecords rec;
  writeFile(tmp("noop.ptx"), "// fake-ok\n.visible .entry noop()\n");
  writeFile(tmp("noop_static.ptx"),
            "// fake-ok fake-static-smem=40000\n.visible .entry noop()\n");
  auto dev = fakeDevice();
  CHECK(dev->limits().maxSharedPerBlockOptin == 232448); // 227 KiB
  auto spec = [](const char *module, unsigned smem) {
    return parse(std::string(R"({"module": ")") + module +
                 R"(", "kernel": "noop", "grid": 1, "block": 128,
      "shared_mem": )" +
                 std::to_string(smem) +
                 R"(, "args": [], "warmup": 0, "repetitions": 1})");
  };
  runSpec(*dev, spec("noop.ptx", 232448));
  CHECK(rec.launch->maxDynamicSmem == 232448);
  CHECK(rec.launch->sharedMem == 232448);

  int calls = rec.launch->calls;
  try {
    runSpec(*dev, spec("noop.ptx", 240 * 1024));
    FAIL("240 KiB accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Launch);
    std::string m = e.what();
    CHECK(m.find("requested 245760 bytes") != std::string::npos);
    CHECK(m.find("232448") != std::string::npos);
  }
  // Static shared memory counts too: 40000 + 200000 > 232448.
  try {
    runSpec(*dev, spec("noop_static.ptx", 200000));
    FAIL("static + dynamic beyond the maximum accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Launch);
    CHECK(std::string(e.what()).find("40000 bytes static + 200000 bytes "
                                     "dynamic = 240000") != std::string::npos);
  }
  CHECK(rec.launch->calls == calls); // refused before launching
  runSpec(*dev, spec("noop_static.ptx", 190000));
  CHECK(rec.launch->calls == calls + 2); // one repetition, one check
  CHECK(rec.launch->maxDynamicSmem == 190000);
  // 40000 static + 20000 dynamic is above 48 KiB: the kernel opts in even
  // though the dynamic part alone is below it.
  runSpec(*dev, spec("noop_static.ptx", 20000));
  CHECK(rec.launch->maxDynamicSmem == 20000);
}

TEST_CASE("bf16 TN GEMM check", "[runner][hopper]") {
  writeFile(tmp("bf16.ptx"),
            "// fake-ok\n.visible .entry fake_gemm_bf16_tn(.param .u64 A, "
            ".param .u64 B, .param .u64 C, .param .u32 M, .param .u32 N, "
            ".param .u32 K)\n");
  auto spec = [](const std::string &checkExtra) {
    return parse(R"({"module": "bf16.ptx", "kernel": "fake_gemm_bf16_tn",
      "grid": 1, "block": 128, "args": [
        {"dtype": "bf16", "shape": [32, 64], "seed": 5},
        {"dtype": "bf16", "shape": [16, 64], "seed": 6},
        {"dtype": "bf16", "shape": [32, 16], "role": "output"},
        {"dtype": "i32", "value": 32}, {"dtype": "i32", "value": 16},
        {"dtype": "i32", "value": 64}],
      "check": {"kind": "gemm", "A": 0, "B": 1, "C": 2, "M": 32, "N": 16,
                "K": 64)" +
                 checkExtra + R"(}, "warmup": 0, "repetitions": 1})");
  };
  auto dev = fakeDevice();
  RunResult ok = runSpec(*dev, spec(", \"b_layout\": \"col-major\""));
  CHECK(ok.checked);
  CHECK(ok.checkPassed);
  const Json &c = ok.report.at("check");
  CHECK(c.at("rtol").get<double>() == 0.015625);
  CHECK(c.at("layout").get<std::string>() == "nt");
  // The output is rounded to bf16: it differs from the f32 reference.
  CHECK(c.at("max_abs_err").get<double>() > 0);
  // Too tight for bf16, or B read the wrong way round: the check fails.
  RunResult tight = runSpec(
      *dev, spec(", \"b_layout\": \"col-major\", \"atol\": 0, \"rtol\": 1e-5"));
  CHECK_FALSE(tight.checkPassed);
  CHECK(tight.report.at("check").at("mismatches").get<int64_t>() > 0);
  RunResult wrong = runSpec(*dev, spec(", \"b_layout\": \"row-major\""));
  CHECK_FALSE(wrong.checkPassed);
}
