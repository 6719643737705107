//===- RunnerTest.cpp - End-to-end runs against a fake CUDA driver --------===//
#include "argus/runtime/Runner.h"
#include "FakeCuda.h"
#include "argus/runtime/Error.h"

#include <catch2/catch.hpp>
#include <cstdio>
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
  std::ofstream f(path);
  f << text;
}

std::unique_ptr<Device> fakeDevice() {
  DeviceOptions o;
  o.cudaLibraries = {ARGUS_FAKE_CUDA_LIB};
  o.hipLibraries = {};
  return openDevice(o);
}

LaunchSpec gemmSpec(unsigned capacity, const std::string &module = "fake.ptx",
                    const std::string &kernel = "fake_gemm",
                    const std::string &checkExtra = "") {
  writeFile(
      tmp("fake.ptx"),
      "// fake-ok\n.visible .entry fake_gemm(.param .u64 A, .param .u64 B, "
      ".param .u64 C, .param .u32 M, .param .u32 N, .param .u32 K, "
      ".param .u64 probes)\n");
  writeFile(tmp("fake_bad.ptx"), "// fake-bad-ptx\n");
  std::string spec = R"({
    "module": ")" + module +
                     R"(", "kernel": ")" + kernel + R"(",
    "grid": [2, 2], "block": [128],
    "args": [
      {"dtype": "f16", "shape": [64, 64], "seed": 3},
      {"dtype": "f16", "shape": [64, 64], "seed": 4},
      {"dtype": "f32", "shape": [64, 64], "role": "output"},
      {"dtype": "i32", "value": 64}, {"dtype": "i32", "value": 64},
      {"dtype": "i32", "value": 64}],
    "check": {"kind": "gemm", "A": 0, "B": 1, "C": 2, "M": 64, "N": 64,
              "K": 64, "atol": 1e-4, "rtol": 1e-4)" +
                     checkExtra + R"(},
    "probes": {"capacity_per_warp": )" +
                     std::to_string(capacity) + R"(,
               "regions": {"1": "load_tile", "2": "mma"}},
    "warmup": 2, "repetitions": 7})";
  return parseLaunchSpec(parseJson(spec), ARGUS_TEST_TMPDIR);
}
} // namespace

TEST_CASE("end to end through the fake driver", "[runner]") {
  auto dev = fakeDevice();
  CHECK(dev->backend() == "cuda");
  CHECK(dev->name() == "Fake GPU (sm_90)");
  RunResult r = runSpec(*dev, gemmSpec(8));
  CHECK(r.checked);
  CHECK(r.checkPassed);
  CHECK(r.probeRecords == 4 * 4 * 8);
  CHECK(r.probeDropped == 0);
  CHECK(r.probeUnmatched == 0);
  const Json &rep = r.report;
  CHECK(rep.at("schema").get<std::string>() == "argus.run_report/1");
  CHECK(rep.at("timing").at("samples").at("value").size() == 7);
  CHECK(rep.at("check").at("passed").get<bool>());
  const Json &regions = rep.at("probes").at("regions");
  REQUIRE(regions.size() == 2);
  CHECK(regions[0].at("name").get<std::string>() == "load_tile");
  CHECK(regions[0].at("count").at("value").get<int64_t>() == 32);
  CHECK(regions[1].at("min").at("value").get<double>() == 12);
  CHECK(r.trace.at("traceEvents").size() == 64 + 4 + 16);
  std::string summary = formatSummary(gemmSpec(8), r);
  CHECK(summary.find("PASS") != std::string::npos);
  CHECK(summary.find("load_tile") != std::string::npos);
}

TEST_CASE("the GEMM check's reference runs on the device, or on the host",
          "[runner]") {
  auto dev = fakeDevice();
  void *h = dlopen(ARGUS_FAKE_CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(h);
  auto *refLaunches =
      static_cast<int *>(dlsym(h, "argusFakeReferenceLaunches"));
  REQUIRE(refLaunches);
  int before = *refLaunches;
  RunResult d = runSpec(*dev, gemmSpec(8));
  CHECK(*refLaunches == before + 1);
  const Json &dc = d.report.at("check");
  CHECK(dc.at("reference").get<std::string>().rfind("device GEMM", 0) == 0);
  CHECK(dc.at("reference_note").is_null());
  CHECK(dc.at("passed").get<bool>());
  // The kernel under test stays the last launch the fake recorded.
  auto *last = static_cast<ArgusFakeLaunch *>(dlsym(h, "argusFakeLaunch"));
  REQUIRE(last);
  CHECK(last->grid[0] == 2);
  CHECK(last->block[0] == 128);

  RunResult hr = runSpec(
      *dev, gemmSpec(8, "fake.ptx", "fake_gemm", R"(, "reference": "host")"));
  CHECK(*refLaunches == before + 1);
  const Json &hc = hr.report.at("check");
  CHECK(hc.at("reference").get<std::string>() == "host GEMM, f32 accumulation");
  CHECK(hc.at("passed").get<bool>());
  // Same inputs, same k order: the same errors.
  CHECK(hc.at("max_abs_err").get<double>() ==
        dc.at("max_abs_err").get<double>());

  try {
    gemmSpec(8, "fake.ptx", "fake_gemm", R"(, "reference": "gpu")");
    FAIL("reference \"gpu\" accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Spec);
    CHECK(e.path == "$.check.reference");
  }
  // An input type the device reference cannot read: "auto" checks on the
  // host and says why, "device" is an error.
  LaunchSpec ints = gemmSpec(8);
  ints.args[0].dtype = DType::I32;
  RunResult ih = runSpec(*dev, ints);
  CHECK(ih.report.at("check").at("reference").get<std::string>() ==
        "host GEMM, f32 accumulation");
  CHECK(ih.report.at("check")
            .at("reference_note")
            .get<std::string>()
            .find("not i32") != std::string::npos);
  ints.check.reference = "device";
  try {
    runSpec(*dev, ints);
    FAIL("device reference of i32 inputs accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Spec);
    CHECK(std::string(e.what()).find("not i32") != std::string::npos);
  }
}

TEST_CASE("overflow through the fake driver counts drops", "[runner]") {
  auto dev = fakeDevice();
  RunResult r = runSpec(*dev, gemmSpec(6));
  CHECK(r.probeRecords == 16 * 6);
  CHECK(r.probeDropped == 16 * 2);
  // The last region's begin/end pair was dropped entirely: nothing unmatched.
  CHECK(r.probeUnmatched == 0);
  RunResult r5 = runSpec(*dev, gemmSpec(5));
  CHECK(r5.probeDropped == 16 * 3);
  CHECK(r5.probeUnmatched == 16); // begin kept, end dropped
}

TEST_CASE("blocks of fewer warps than the fake writes keep to their slots",
          "[runner]") {
  // 64 threads: two warps per block have probe slots. The fake's kernel
  // would write for four; warps 2 and 3 must not land in the next block's
  // slots (or past the slot table for the last block).
  auto dev = fakeDevice();
  LaunchSpec spec = gemmSpec(8);
  spec.launch.block[0] = 64;
  spec.probes.warpsPerBlock = 2;
  RunResult r = runSpec(*dev, spec);
  CHECK(r.checkPassed);
  CHECK(r.probeRecords == 4 * 2 * 8); // blocks * warps * records per warp
  CHECK(r.probeDropped == 0);
  CHECK(r.probeUnmatched == 0);
}

TEST_CASE("a GEMM without probes has no probe parameter", "[runner]") {
  // Six parameters, no probe buffer: the fake must not read a seventh.
  writeFile(tmp("fake6.ptx"),
            "// fake-ok\n.visible .entry fake_gemm(.param .u64 A, .param .u64 "
            "B, .param .u64 C, .param .u32 M, .param .u32 N, .param .u32 K)\n");
  std::string text = R"({
    "module": "fake6.ptx", "kernel": "fake_gemm", "grid": 1, "block": [128],
    "args": [
      {"dtype": "f16", "shape": [32, 64], "seed": 3},
      {"dtype": "f16", "shape": [64, 32], "seed": 4},
      {"dtype": "f32", "shape": [32, 32], "role": "output"},
      {"dtype": "i32", "value": 32}, {"dtype": "i32", "value": 32},
      {"dtype": "i32", "value": 64}],
    "check": {"kind": "gemm", "A": 0, "B": 1, "C": 2, "M": 32, "N": 32,
              "K": 64, "atol": 1e-4, "rtol": 1e-4},
    "warmup": 0, "repetitions": 2})";
  auto dev = fakeDevice();
  RunResult r =
      runSpec(*dev, parseLaunchSpec(parseJson(text), ARGUS_TEST_TMPDIR));
  CHECK(r.checked);
  CHECK(r.checkPassed);
  CHECK(r.probeRecords == 0);
}

TEST_CASE("module and launch errors through the fake driver", "[runner]") {
  auto dev = fakeDevice();
  try {
    runSpec(*dev, gemmSpec(8, "fake_bad.ptx"));
    FAIL("bad PTX accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Module);
    CHECK(e.log.find("fake syntax error") != std::string::npos);
    CHECK(std::string(e.what()).find("CUDA_ERROR_INVALID_PTX") !=
          std::string::npos);
  }
  try {
    runSpec(*dev, gemmSpec(8, "fake.ptx", "nope"));
    FAIL("missing kernel accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Module);
  }
  try {
    runSpec(*dev, gemmSpec(8, "missing.ptx"));
    FAIL("missing module accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Module);
  }
  LaunchSpec big = gemmSpec(8);
  big.launch.block[0] = 2048;
  try {
    runSpec(*dev, big);
    FAIL("2048 threads accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Launch);
  }
}

namespace {
std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

template <typename T>
void writeVec(const std::string &path, const std::vector<T> &v) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char *>(v.data()),
          static_cast<std::streamsize>(v.size() * sizeof(T)));
}
} // namespace

TEST_CASE("file-initialised inputs reach the device and outputs are saved",
          "[runner]") {
  // A (M x K) and B (K x N) come from files with known values; the fake
  // kernel computes C = A*B on the "device"; C is saved.
  const int M = 32, N = 16, K = 64;
  std::vector<uint16_t> A(M * K), B(K * N);
  for (int i = 0; i < M * K; ++i)
    A[i] = floatToHalf(static_cast<float>((i * 7) % 11 - 5) * 0.25f);
  for (int i = 0; i < K * N; ++i)
    B[i] = floatToHalf(static_cast<float>((i * 5) % 13 - 6) * 0.5f);
  writeVec(tmp("in_A.f16"), A);
  writeVec(tmp("in_B.f16"), B);
  std::remove(tmp("out_C.f32").c_str());
  writeFile(
      tmp("fake.ptx"),
      "// fake-ok\n.visible .entry fake_gemm(.param .u64 A, .param .u64 B, "
      ".param .u64 C, .param .u32 M, .param .u32 N, .param .u32 K, "
      ".param .u64 probes)\n");
  std::string spec = R"({
    "module": "fake.ptx", "kernel": "fake_gemm", "grid": 1, "block": [128],
    "args": [
      {"name": "A", "dtype": "f16", "shape": [32, 64], "init": {"file": "in_A.f16"}},
      {"name": "B", "dtype": "f16", "shape": [64, 16], "init": {"file": "in_B.f16"}},
      {"name": "C", "dtype": "f32", "shape": [32, 16], "role": "output",
       "save": "out_C.f32"},
      {"dtype": "i32", "value": 32}, {"dtype": "i32", "value": 16},
      {"dtype": "i32", "value": 64}, {"dtype": "u64", "value": 0}],
    "check": {"kind": "gemm", "A": 0, "B": 1, "C": 2, "M": 32, "N": 16,
              "K": 64, "atol": 0, "rtol": 0},
    "warmup": 1, "repetitions": 2})";
  auto dev = fakeDevice();
  RunResult r =
      runSpec(*dev, parseLaunchSpec(parseJson(spec), ARGUS_TEST_TMPDIR));
  // The host reference used the file contents and agrees exactly.
  CHECK(r.checked);
  CHECK(r.checkPassed);
  std::vector<uint8_t> got = readBytes(tmp("out_C.f32"));
  REQUIRE(got.size() == size_t(M) * N * 4);
  std::vector<float> want(M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += halfToFloat(A[m * K + k]) * halfToFloat(B[k * N + n]);
      want[m * N + n] = acc;
    }
  CHECK(std::memcmp(got.data(), want.data(), got.size()) == 0);
  CHECK(want[0] != 0.0f);
  const Json &saved = r.report.at("saved");
  REQUIRE(saved.size() == 1);
  CHECK(saved[0].at("arg").get<int64_t>() == 2);
  CHECK(saved[0].at("name").get<std::string>() == "C");
  CHECK(saved[0].at("bytes").get<int64_t>() == M * N * 4);
  CHECK(saved[0].at("file").get<std::string>() == tmp("out_C.f32"));
}

TEST_CASE("inout buffers round-trip through init file and save", "[runner]") {
  // A kernel the fake driver does not implement leaves its buffers alone:
  // an inout buffer's saved bytes equal its init file, for every dtype size.
  writeFile(tmp("noop.ptx"), "// fake-ok\n.visible .entry noop()\n");
  std::vector<uint16_t> h(3 * 5);
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = static_cast<uint16_t>(0x3C00 + 17 * i); // f16/bf16 bit patterns
  std::vector<double> d = {1.5, -2.25, 3e300, 0.0};
  writeVec(tmp("io_h.bin"), h);
  writeVec(tmp("io_d.bin"), d);
  std::remove(tmp("io_h.out").c_str());
  std::remove(tmp("io_d.out").c_str());
  std::string spec = R"({
    "module": "noop.ptx", "kernel": "noop", "grid": 1, "block": 32,
    "args": [
      {"dtype": "bf16", "shape": [3, 5], "role": "inout",
       "init": {"file": "io_h.bin"}, "save": "io_h.out"},
      {"dtype": "f64", "shape": [4], "role": "inout",
       "init": {"file": "io_d.bin"}, "save": "io_d.out"}],
    "warmup": 0, "repetitions": 1})";
  auto dev = fakeDevice();
  RunResult r =
      runSpec(*dev, parseLaunchSpec(parseJson(spec), ARGUS_TEST_TMPDIR));
  CHECK(readBytes(tmp("io_h.out")) == readBytes(tmp("io_h.bin")));
  CHECK(readBytes(tmp("io_d.out")) == readBytes(tmp("io_d.bin")));
  CHECK(r.report.at("saved").size() == 2);

  // An output buffer without init is poisoned before the checked run: a
  // kernel that writes nothing leaves NaN bytes (0xFF), which are saved.
  std::string spec2 = R"({
    "module": "noop.ptx", "kernel": "noop", "grid": 1, "block": 32,
    "args": [{"dtype": "f32", "shape": [8], "role": "output",
              "save": "poison.out"}], "repetitions": 1})";
  runSpec(*dev, parseLaunchSpec(parseJson(spec2), ARGUS_TEST_TMPDIR));
  CHECK(readBytes(tmp("poison.out")) == std::vector<uint8_t>(32, 0xFF));

  // A save path that cannot be written is a runtime error naming the arg.
  std::string spec3 = R"({
    "module": "noop.ptx", "kernel": "noop", "grid": 1, "block": 32,
    "args": [{"dtype": "f32", "shape": [8], "role": "output",
              "save": "/nonexistent/argus/dir/x.out"}], "repetitions": 1})";
  try {
    runSpec(*dev, parseLaunchSpec(parseJson(spec3), ARGUS_TEST_TMPDIR));
    FAIL("unwritable save path accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Runtime);
    CHECK(e.path == "$.args[0].save");
  }
}
