//===- RunnerTest.cpp - End-to-end runs against a fake CUDA driver --------===//
#include "argus/runtime/Runner.h"
#include "argus/runtime/Error.h"

#include <catch2/catch.hpp>
#include <fstream>

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
                    const std::string &kernel = "fake_gemm") {
  writeFile(tmp("fake.ptx"), "// fake-ok\n.visible .entry fake_gemm()\n");
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
              "K": 64, "atol": 1e-4, "rtol": 1e-4},
    "probes": {"capacity_per_warp": )" +
                     std::to_string(capacity) + R"(,
               "regions": {"1": "load_tile", "2": "mma"}},
    "warmup": 2, "repetitions": 7})";
  return parseLaunchSpec(Json::parse(spec), ARGUS_TEST_TMPDIR);
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
  CHECK(rep.find("schema")->asString() == "argus.run_report/1");
  CHECK(rep.find("timing")->find("samples")->find("value")->size() == 7);
  CHECK(rep.find("check")->find("passed")->asBool());
  const Json &regions = *rep.find("probes")->find("regions");
  REQUIRE(regions.size() == 2);
  CHECK(regions.asArray()[0].find("name")->asString() == "load_tile");
  CHECK(regions.asArray()[0].find("count")->find("value")->asInt() == 32);
  CHECK(regions.asArray()[1].find("min")->find("value")->asDouble() == 12);
  CHECK(r.trace.find("traceEvents")->size() == 64 + 4 + 16);
  std::string summary = formatSummary(gemmSpec(8), r);
  CHECK(summary.find("PASS") != std::string::npos);
  CHECK(summary.find("load_tile") != std::string::npos);
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
