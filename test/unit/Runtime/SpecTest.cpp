//===- SpecTest.cpp - launch spec parsing and its errors ------------------===//
#include "argus/runtime/Spec.h"
#include "argus/runtime/Error.h"

#include <catch2/catch.hpp>
#include <fstream>

using namespace argus::rt;

namespace {
const char *kGood = R"({
  "module": "probe_gemm.ptx", "kernel": "probe_gemm",
  "grid": [4, 4], "block": [128], "shared_mem": 0,
  "args": [
    {"name": "A", "dtype": "f16", "shape": [128, 64], "init": "random", "seed": 1},
    {"name": "B", "dtype": "f16", "shape": [64, 128], "init": "random", "seed": 2, "range": [-2, 2]},
    {"name": "C", "dtype": "f32", "shape": [128, 128], "role": "output"},
    {"name": "M", "dtype": "i32", "value": 128}
  ],
  "check": {"kind": "gemm", "A": 0, "B": 1, "C": 2, "M": 128, "N": 128, "K": 64,
            "layout": "row-major", "atol": 1e-2, "rtol": 1e-2},
  "probes": {"capacity_per_warp": 64, "regions": {"1": "load_tile", "2": "mma"}},
  "warmup": 1, "repetitions": 5
})";

std::string specErrorPath(const std::string &mutated) {
  try {
    parseLaunchSpec(parseJson(mutated), "/base");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Spec);
    return e.path;
  }
  return "<no error>";
}

std::string replace(std::string s, const std::string &from,
                    const std::string &to) {
  size_t p = s.find(from);
  REQUIRE(p != std::string::npos);
  return s.replace(p, from.size(), to);
}
} // namespace

TEST_CASE("a good spec parses", "[spec]") {
  LaunchSpec s = parseLaunchSpec(parseJson(kGood), "/base");
  CHECK(s.modulePath == "/base/probe_gemm.ptx");
  CHECK(s.format == ModuleFormat::PTX);
  CHECK(s.launch.grid[0] == 4);
  CHECK(s.launch.grid[1] == 4);
  CHECK(s.launch.grid[2] == 1);
  CHECK(s.launch.block[0] == 128);
  REQUIRE(s.args.size() == 4);
  CHECK(s.args[0].dtype == DType::F16);
  CHECK(s.args[0].elements == 128 * 64);
  CHECK(s.args[1].hi == 2);
  CHECK(s.args[2].role == "output");
  CHECK(s.args[2].init == "zeros");
  CHECK_FALSE(s.args[3].isBuffer);
  CHECK(s.args[3].scalarInt == 128);
  CHECK(s.check.enabled);
  CHECK(s.check.K == 64);
  CHECK(s.probes.enabled);
  CHECK(s.probes.warpsPerBlock == 4); // derived from the block size
  CHECK(s.probes.regions.at(2) == "mma");
  CHECK(s.repetitions == 5);
}

TEST_CASE("spec errors name the bad field", "[spec]") {
  std::string g = kGood;
  CHECK(specErrorPath(replace(g, "\"dtype\": \"f16\"", "\"dtype\": \"f17\"")) ==
        "$.args[0].dtype");
  CHECK(specErrorPath(replace(g, "\"shape\": [64, 128]",
                              "\"shape\": [64, -1]")) == "$.args[1].shape[1]");
  CHECK(specErrorPath(replace(g, "\"kernel\": \"probe_gemm\",", "")) ==
        "$.kernel");
  CHECK(specErrorPath(replace(g, "\"grid\": [4, 4]", "\"grid\": \"big\"")) ==
        "$.grid");
  CHECK(specErrorPath(replace(g, "\"C\": 2,", "\"C\": 3,")) == "$.check.C");
  CHECK(specErrorPath(replace(g, "\"C\": 2,", "\"C\": 9,")) == "$.check.C");
  CHECK(specErrorPath(replace(g, "\"K\": 64", "\"K\": 65")) == "$.check.A");
  CHECK(specErrorPath(replace(g, "\"capacity_per_warp\": 64",
                              "\"capacity_per_warp\": 0")) ==
        "$.probes.capacity_per_warp");
  CHECK(specErrorPath(
            replace(g, "\"1\": \"load_tile\"", "\"one\": \"load_tile\"")) ==
        "$.probes.regions.one");
  CHECK(specErrorPath(replace(g, "\"warmup\"", "\"warm_up\"")) == "$.warm_up");
  CHECK(specErrorPath(replace(g, "\"role\": \"output\"",
                              "\"role\": \"out\"")) == "$.args[2].role");
  CHECK(specErrorPath(replace(g, "\"value\": 128", "\"value\": 1.5")) ==
        "$.args[3].value");
  CHECK(specErrorPath("[1, 2]") == "$");
}

TEST_CASE("launches no device can run are spec errors", "[spec]") {
  // Issue 54: --validate accepted grid [0,0,0] and a block of 2^31 threads.
  std::string g = kGood;
  auto grid = [&](const std::string &v) {
    return specErrorPath(replace(g, "\"grid\": [4, 4]", "\"grid\": " + v));
  };
  auto block = [&](const std::string &v) {
    return specErrorPath(replace(g, "\"block\": [128]", "\"block\": " + v));
  };
  CHECK(grid("[0, 0, 0]") == "$.grid[0]");
  CHECK(grid("[4, 0]") == "$.grid[1]");
  CHECK(grid("0") == "$.grid[0]");
  CHECK(grid("[2147483648]") == "$.grid[0]");
  CHECK(grid("[1, 65536]") == "$.grid[1]");
  CHECK(grid("[8, 2, 1]") == "<no error>");
  CHECK(grid("[\"sms\", 2]") == "<no error>");
  CHECK(block("[2147483648]") == "$.block[0]");
  CHECK(block("[0]") == "$.block[0]");
  CHECK(block("[1, 1, 65]") == "$.block[2]");
  CHECK(block("[32, 33]") == "$.block");
  CHECK(block("[1024]") == "<no error>");
  CHECK(block("[32, 32]") == "<no error>");
  try {
    parseLaunchSpec(parseJson(replace(g, "\"grid\": [4, 4]", "\"grid\": [0]")),
                    "/base");
    FAIL("grid [0] was accepted");
  } catch (const RuntimeError &e) {
    CHECK(std::string(e.what()).find("grid.x = 0 launches no block") !=
          std::string::npos);
  }
}

TEST_CASE("spec errors name the field as a JSON pointer too", "[spec]") {
  const std::string g = kGood;
  auto pointerOf = [](const std::string &text) -> std::string {
    try {
      parseLaunchSpec(parseJson(text), "/base");
    } catch (const RuntimeError &e) {
      return e.pointer;
    }
    return "<no error>";
  };
  CHECK(pointerOf(replace(g, "\"value\": 128", "\"value\": 1.5")) ==
        "/args/3/value");
  CHECK(pointerOf(replace(g, "\"mma\"", "\"mma\", \"a/b\": \"x\"")) ==
        "/probes/regions/a~1b");
  CHECK(pointerOf(replace(g, "\"K\": 64,", "\"K\": 65,")) == "/check/A");
  CHECK(pointerOf("[1, 2]") == "");
  // A key that is not a plain name is quoted in the "$" path.
  CHECK(specErrorPath(replace(g, "\"warmup\"", "\"warm.up\"")) ==
        "$[\"warm.up\"]");
}

TEST_CASE("64-bit scalars are exact", "[spec]") {
  const std::string g = kGood;
  auto scalar = [&](const char *dtype, const char *value) {
    return parseLaunchSpec(
               parseJson(replace(
                   g, "{\"name\": \"M\", \"dtype\": \"i32\", \"value\": 128}",
                   std::string("{\"dtype\": \"") + dtype +
                       "\", \"value\": " + value + "}")),
               "/base")
        .args[3];
  };
  CHECK(uint64_t(scalar("u64", "18446744073709551615").scalarInt) ==
        UINT64_MAX);
  CHECK(uint64_t(scalar("u64", "9007199254740993").scalarInt) ==
        9007199254740993ull);
  CHECK(scalar("i64", "-9223372036854775808").scalarInt == INT64_MIN);
  CHECK(scalar("i64", "9007199254740993").scalarInt == 9007199254740993ll);
  CHECK(specErrorPath(
            replace(g, "\"value\": 128", "\"value\": 9223372036854775808")) ==
        "$.args[3].value");
}

TEST_CASE("spec files: missing file and bad JSON are spec errors", "[spec]") {
  try {
    loadLaunchSpec("/nonexistent/argus/spec.json");
    FAIL("no throw");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Spec);
  }
  std::string path = std::string(ARGUS_TEST_TMPDIR) + "/bad_spec.json";
  {
    std::ofstream f(path);
    f << "{\n \"module\": \"x.ptx\",\n \"kernel\": }\n";
  }
  try {
    loadLaunchSpec(path);
    FAIL("no throw");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Spec);
    CHECK(std::string(e.what()).find("line 3") != std::string::npos);
  }
  std::string good = std::string(ARGUS_TEST_TMPDIR) + "/my_gemm.json";
  {
    std::ofstream f(good);
    f << kGood;
  }
  LaunchSpec s = loadLaunchSpec(good);
  CHECK(s.name == "my_gemm");
  CHECK(s.modulePath == std::string(ARGUS_TEST_TMPDIR) + "/probe_gemm.ptx");
}

namespace {
std::string tmpPath(const std::string &name) {
  return std::string(ARGUS_TEST_TMPDIR) + "/" + name;
}

void writeBytes(const std::string &path, size_t n) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  for (size_t i = 0; i < n; ++i)
    f.put(static_cast<char>(i & 0xFF));
}

/// One f16 [4, 8] buffer (64 bytes) plus `extra` JSON fields.
std::string fileSpec(const std::string &argFields) {
  return R"({"module": "m.ptx", "kernel": "k", "grid": 1, "block": 32,
             "args": [{"name": "X", "dtype": "f16", "shape": [4, 8], )" +
         argFields + "}]}";
}

RuntimeError specError(const std::string &text, const std::string &base) {
  try {
    parseLaunchSpec(parseJson(text), base);
  } catch (const RuntimeError &e) {
    return e;
  }
  FAIL("no spec error for " << text);
  return RuntimeError(ErrorKind::Runtime, "");
}
} // namespace

TEST_CASE("init files and save paths", "[spec]") {
  const std::string dir = ARGUS_TEST_TMPDIR;
  writeBytes(tmpPath("x64.bin"), 64);
  writeBytes(tmpPath("x63.bin"), 63);

  // Relative paths resolve against the spec's folder; absolute ones stay.
  LaunchSpec s = parseLaunchSpec(
      parseJson(fileSpec(R"("init": {"file": "x64.bin"}, "role": "inout",
                              "save": "out/x.bin")")),
      dir);
  REQUIRE(s.args.size() == 1);
  CHECK(s.args[0].init == "file");
  CHECK(s.args[0].initFile == dir + "/x64.bin");
  CHECK(s.args[0].savePath == dir + "/out/x.bin");
  std::vector<uint8_t> data = readInitFile(s.args[0], "$.args[0].init.file");
  REQUIRE(data.size() == 64);
  CHECK(data[63] == 63);
  s = parseLaunchSpec(
      parseJson(fileSpec(R"("init": {"file": ")" + tmpPath("x64.bin") +
                         R"("}, "role": "output", "save": "/abs/y.bin")")),
      "/elsewhere");
  CHECK(s.args[0].initFile == dir + "/x64.bin");
  CHECK(s.args[0].savePath == "/abs/y.bin");

  // Size mismatch: exit 2, the JSON path and both sizes.
  RuntimeError e = specError(fileSpec(R"("init": {"file": "x63.bin"})"), dir);
  CHECK(e.kind == ErrorKind::Spec);
  CHECK(static_cast<int>(e.kind) == 2);
  CHECK(e.path == "$.args[0].init.file");
  std::string msg = e.what();
  CHECK(msg.find("63 bytes") != std::string::npos);
  CHECK(msg.find("needs 64") != std::string::npos);
  CHECK(msg.find("x63.bin") != std::string::npos);

  // Missing file.
  e = specError(fileSpec(R"("init": {"file": "no_such.bin"})"), dir);
  CHECK(e.kind == ErrorKind::Spec);
  CHECK(e.path == "$.args[0].init.file");
  CHECK(std::string(e.what()).find("no_such.bin") != std::string::npos);

  // Shape errors of the init object and of save.
  CHECK(specError(fileSpec(R"("init": {})"), dir).path ==
        "$.args[0].init.file");
  CHECK(specError(fileSpec(R"("init": {"file": 3})"), dir).path ==
        "$.args[0].init.file");
  CHECK(
      specError(fileSpec(R"("init": {"file": "x64.bin", "x": 1})"), dir).path ==
      "$.args[0].init.x");
  CHECK(specError(fileSpec(R"("init": "file")"), dir).path == "$.args[0].init");
  CHECK(specError(fileSpec(R"("save": "x.bin")"), dir).path ==
        "$.args[0].save"); // role input
  CHECK(specError(fileSpec(R"("role": "output", "save": 1)"), dir).path ==
        "$.args[0].save");
  CHECK(specError(R"({"module": "m.ptx", "kernel": "k", "grid": 1,
                      "block": 32, "args": [{"dtype": "i32", "value": 1,
                      "save": "s.bin"}]})",
                  dir)
            .path == "$.args[0].save");

  // The size is re-checked when the run reads the file.
  s = parseLaunchSpec(parseJson(fileSpec(R"("init": {"file": "x64.bin"})")),
                      dir);
  writeBytes(tmpPath("x64.bin"), 65);
  try {
    readInitFile(s.args[0], "$.args[0].init.file");
    FAIL("a changed init file was accepted");
  } catch (const RuntimeError &re) {
    CHECK(re.kind == ErrorKind::Spec);
    CHECK(re.path == "$.args[0].init.file");
    CHECK(std::string(re.what()).find("65 bytes") != std::string::npos);
  }
}

TEST_CASE("a launch outside the proved envelope is refused", "[spec]") {
  // The envelope the Python launcher writes from the launch ABI's limits
  // (argus/Verify/ModelLimits.h): the spec's launch is inside it.
  std::string inside =
      replace(kGood, "\"warmup\": 1",
              "\"envelope\": {\"grid\": [1, 65536], \"scalars\": {\"M\": [1, "
              "65536]}}, \"warmup\": 1");
  CHECK_NOTHROW(parseLaunchSpec(parseJson(inside), "/base"));
  // Every value at the edges and past them, for the scalar and the grid.
  for (int64_t m : {int64_t(0), int64_t(65536), int64_t(100000)}) {
    std::string s =
        replace(inside, "\"value\": 128", "\"value\": " + std::to_string(m));
    CHECK(specErrorPath(s) == "$.args[3].value");
    try {
      parseLaunchSpec(parseJson(s), "/base");
    } catch (const RuntimeError &e) {
      CHECK_THAT(e.what(),
                 Catch::Contains("argument 'M' is " + std::to_string(m) +
                                 ", outside [1, 65536)"));
    }
  }
  CHECK(specErrorPath(replace(inside, "\"value\": 128", "\"value\": 65535")) ==
        "<no error>");
  CHECK(specErrorPath(replace(inside, "\"grid\": [4, 4]",
                              "\"grid\": [65536, 4]")) == "$.grid[0]");
  CHECK(specErrorPath(replace(inside, "\"grid\": [4, 4]",
                              "\"grid\": [65535, 4]")) == "<no error>");
  // A malformed envelope is a spec error of its own.
  CHECK(specErrorPath(replace(inside, "\"grid\": [1, 65536]",
                              "\"grid\": [65536, 1]")) == "$.envelope.grid");
  CHECK(specErrorPath(replace(inside, "\"M\": [1,", "\"Q\": [1,")) ==
        "$.envelope.scalars.Q");
}
