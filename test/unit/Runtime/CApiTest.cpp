//===- CApiTest.cpp - argus_rt_run against the fake CUDA driver -----------===//
//
// The C API runs a spec with the module and the buffers in memory: the
// inputs given replace "init", the outputs come back into the caller's
// memory, errors come back as the JSON object argus-run --batch writes.
//
//===----------------------------------------------------------------------===//
#include "argus/runtime/CApi.h"
#include "argus/runtime/HostData.h"
#include "argus/runtime/Json.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

using namespace argus::rt;

namespace {

const char *kModule =
    "// fake-ok\n.visible .entry fake_gemm(.param .u64 A, .param .u64 B, "
    ".param .u64 C, .param .u32 M, .param .u32 N, .param .u32 K)\n";

/// An 8x4 by 4x8 GEMM spec with C an output; "module" only names it.
std::string gemmSpec(const char *extra = "") {
  return std::string(R"({"module": "<memory>", "format": "ptx",
    "kernel": "fake_gemm", "grid": [1], "block": [128],
    "args": [{"name": "A", "dtype": "f16", "shape": [8, 4]},
             {"name": "B", "dtype": "f16", "shape": [4, 8]},
             {"name": "C", "dtype": "f32", "shape": [8, 8], "role": "output"},
             {"dtype": "i32", "value": 8}, {"dtype": "i32", "value": 8},
             {"dtype": "i32", "value": 4}],
    "check": {"kind": "gemm", "A": 0, "B": 1, "C": 2, "M": 8, "N": 8,
              "K": 4, "atol": 1e-4, "rtol": 1e-4},
    "repetitions": 2)") +
         extra + "}";
}

std::vector<uint8_t> f16Matrix(size_t n, double scale) {
  std::vector<uint8_t> bytes(n * 2);
  for (size_t i = 0; i < n; ++i)
    storeElement(bytes.data(), DType::F16, i, scale * double(int(i % 5) - 2));
  return bytes;
}

struct Result {
  int code;
  Json report;
};

Result run(const std::string &spec, std::vector<argus_rt_buffer> bufs,
           const char *cuda = ARGUS_FAKE_CUDA_LIB) {
  char *text = nullptr;
  int code =
      argus_rt_run(spec.c_str(), kModule, std::strlen(kModule), bufs.data(),
                   bufs.size(), cuda, "libargus-no-such-hip.so", &text);
  REQUIRE(text != nullptr);
  Result r{code, parseJson(text)};
  argus_rt_free(text);
  return r;
}

} // namespace

TEST_CASE("argus_rt_run: inputs from memory, C back into memory", "[capi]") {
  CHECK(argus_rt_abi_version() == ARGUS_RT_ABI_VERSION);
  std::vector<uint8_t> a = f16Matrix(32, 0.5), b = f16Matrix(32, 0.25);
  std::vector<float> c(64, -1.0f);
  Result r = run(gemmSpec(), {{0, a.data(), a.size(), nullptr, 0},
                              {1, b.data(), b.size(), nullptr, 0},
                              {2, nullptr, 0, c.data(), c.size() * 4}});
  REQUIRE(r.code == 0);
  CHECK(r.report.at("schema").get<std::string>() == "argus.run_report/1");
  CHECK(r.report.at("check").at("passed").get<bool>());
  // C = A * B from the bytes given, not from a random init.
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double want = 0;
      for (int k = 0; k < 4; ++k)
        want += loadElement(a.data(), DType::F16, i * 4 + k) *
                loadElement(b.data(), DType::F16, k * 8 + j);
      CHECK(c[i * 8 + j] == Approx(want));
    }
}

TEST_CASE("argus_rt_run: errors as JSON objects with exit codes", "[capi]") {
  std::vector<uint8_t> a = f16Matrix(32, 1.0);
  std::vector<float> c(64);
  // Input of the wrong size: a spec error naming the argument's init.
  Result r = run(gemmSpec(), {{0, a.data(), a.size() - 2, nullptr, 0}});
  CHECK(r.code == 2);
  CHECK(r.report.at("kind").get<std::string>() == "spec");
  CHECK(r.report.at("path").get<std::string>() == "$.args[0].init");
  CHECK(r.report.at("message").get<std::string>().find("62 bytes") !=
        std::string::npos);
  // Output space for an input, and a buffer index that is a scalar.
  r = run(gemmSpec(), {{0, nullptr, 0, c.data(), 16}});
  CHECK(r.code == 2);
  CHECK(r.report.at("message").get<std::string>().find("is an input") !=
        std::string::npos);
  r = run(gemmSpec(), {{3, a.data(), 4, nullptr, 0}});
  CHECK(r.code == 2);
  CHECK(r.report.at("message").get<std::string>().find("not a buffer") !=
        std::string::npos);
  // A bad spec field, as argus-run reports it.
  r = run(gemmSpec(R"(, "warmup": "x")"), {});
  CHECK(r.code == 2);
  CHECK(r.report.at("path").get<std::string>() == "$.warmup");
  // Malformed JSON.
  r = run("{", {});
  CHECK(r.code == 2);
  // No driver.
  r = run(gemmSpec(), {}, "libargus-no-such-cuda.so");
  CHECK(r.code == 3);
  CHECK(r.report.at("kind").get<std::string>() == "no_driver");
}
