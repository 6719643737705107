//===- HopperSpecTest.cpp - tensor maps, "sms" grids, clusters in specs ---===//
#include "argus/runtime/Error.h"
#include "argus/runtime/Spec.h"

#include <catch2/catch.hpp>

using namespace argus::rt;

namespace {
// A TMA GEMM's spec: A and B reach the kernel only through tensor maps.
const char *kTma = R"({
  "module": "k.ptx", "kernel": "k", "grid": [4, 2], "block": [128],
  "args": [
    {"name": "A", "dtype": "f16", "shape": [256, 128], "param": false},
    {"name": "tmA", "kind": "tensor_map", "buffer": "A", "box": [128, 64],
     "swizzle": 128, "oob_fill": "zero", "pass": "value"},
    {"name": "B", "dtype": "bf16", "shape": [64, 32], "param": false},
    {"name": "tmB", "kind": "tensor_map", "buffer": 2, "box": [32, 16],
     "swizzle": 32, "oob_fill": "nan", "l2_promotion": 256, "pass": "pointer"},
    {"name": "C", "dtype": "f32", "shape": [256, 32], "role": "output"},
    {"name": "n", "dtype": "i32", "value": 7}
  ]
})";

std::string errorOf(const std::string &text, std::string *message = nullptr) {
  try {
    parseLaunchSpec(parseJson(text), "/base");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Spec);
    if (message)
      *message = e.what();
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

bool contains(const std::string &s, const std::string &needle) {
  return s.find(needle) != std::string::npos;
}
} // namespace

TEST_CASE("tensor_map arguments parse", "[spec][hopper]") {
  LaunchSpec s = parseLaunchSpec(parseJson(kTma), "/base");
  REQUIRE(s.args.size() == 6);
  CHECK_FALSE(s.args[0].kernelParam);
  CHECK(s.args[4].kernelParam);
  const ArgSpec &a = s.args[1];
  CHECK(a.isTensorMap);
  CHECK_FALSE(a.isBuffer);
  CHECK(a.tensorMap.buffer == 0);
  CHECK(a.tensorMap.box == std::vector<int64_t>{128, 64});
  CHECK(a.tensorMap.swizzle == 128);
  CHECK_FALSE(a.tensorMap.oobNan);
  CHECK(a.tensorMap.l2Promotion == 128); // default
  CHECK_FALSE(a.tensorMap.passPointer);
  const ArgSpec &b = s.args[3];
  CHECK(b.tensorMap.buffer == 2);
  CHECK(b.tensorMap.oobNan);
  CHECK(b.tensorMap.l2Promotion == 256);
  CHECK(b.tensorMap.passPointer);
  CHECK(b.tensorMap.swizzle == 32);

  // "box" alone makes a tensor map; the buffer may come after it.
  std::string later = R"({"module": "k.ptx", "kernel": "k", "grid": 1,
    "block": 32, "args": [{"buffer": "X", "box": [8]},
                          {"name": "X", "dtype": "f32", "shape": [100]}]})";
  LaunchSpec l = parseLaunchSpec(parseJson(later), "");
  CHECK(l.args[0].isTensorMap);
  CHECK(l.args[0].tensorMap.buffer == 1);
}

TEST_CASE("tensor map descriptors are innermost first", "[spec][hopper]") {
  LaunchSpec s = parseLaunchSpec(parseJson(kTma), "/base");
  TensorMapDesc d =
      tensorMapDesc(s.args[1], s.args[0], 0x7f0000001000ull, "$.args[1]");
  CHECK(d.dataType == 6); // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  CHECK(d.rank == 2);
  CHECK(d.globalAddress == 0x7f0000001000ull);
  CHECK(d.globalDim[0] == 128);     // columns
  CHECK(d.globalDim[1] == 256);     // rows
  CHECK(d.globalStrides[0] == 256); // one row of 128 f16
  CHECK(d.boxDim[0] == 64);
  CHECK(d.boxDim[1] == 128);
  CHECK(d.elementStrides[0] == 1);
  CHECK(d.elementStrides[1] == 1);
  CHECK(d.interleave == 0);
  CHECK(d.swizzle == 3);     // CU_TENSOR_MAP_SWIZZLE_128B
  CHECK(d.l2Promotion == 2); // CU_TENSOR_MAP_L2_PROMOTION_L2_128B
  CHECK(d.oobFill == 0);

  TensorMapDesc db = tensorMapDesc(s.args[3], s.args[2], 0x10000, "$.args[3]");
  CHECK(db.dataType == 9); // BFLOAT16
  CHECK(db.swizzle == 1);  // 32B
  CHECK(db.l2Promotion == 3);
  CHECK(db.oobFill == 1); // NAN_REQUEST_ZERO_FMA

  // Rank 3, f32 [4, 8, 12]: strides 48 and 384 bytes.
  std::string r3 = R"({"module": "k.ptx", "kernel": "k", "grid": 1,
    "block": 32, "args": [{"name": "T", "dtype": "f32", "shape": [4, 8, 12]},
      {"kind": "tensor_map", "buffer": "T", "box": [1, 2, 4]}]})";
  LaunchSpec t = parseLaunchSpec(parseJson(r3), "");
  TensorMapDesc d3 = tensorMapDesc(t.args[1], t.args[0], 0x100, "$.args[1]");
  CHECK(d3.dataType == 7);
  CHECK(d3.rank == 3);
  CHECK(d3.globalDim[0] == 12);
  CHECK(d3.globalDim[1] == 8);
  CHECK(d3.globalDim[2] == 4);
  CHECK(d3.globalStrides[0] == 48);
  CHECK(d3.globalStrides[1] == 384);
  CHECK(d3.boxDim[0] == 4);
  CHECK(d3.boxDim[1] == 2);
  CHECK(d3.boxDim[2] == 1);
  CHECK(d3.swizzle == 0);

  // A device address TMA cannot use.
  try {
    tensorMapDesc(t.args[1], t.args[0], 0x108, "$.args[1]");
    FAIL("misaligned address accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Launch);
    CHECK(contains(e.what(), "16-byte aligned"));
  }
}

TEST_CASE("bad tensor maps name their field", "[spec][hopper]") {
  std::string g = kTma, m;
  CHECK(errorOf(replace(g, "\"box\": [128, 64]", "\"box\": [64]"), &m) ==
        "$.args[1].box");
  CHECK(contains(m, "the box has 1 dimensions; the buffer has 2"));
  CHECK(errorOf(replace(g, "\"box\": [128, 64]", "\"box\": [300, 64]")) ==
        "$.args[1].box[0]");
  CHECK(errorOf(replace(g, "\"box\": [128, 64]", "\"box\": [128, 0]")) ==
        "$.args[1].box[1]");
  // 4 f16 = 8 bytes: not a multiple of 16.
  CHECK(errorOf(replace(g, "\"box\": [128, 64]", "\"box\": [128, 4]"), &m) ==
        "$.args[1].box[1]");
  CHECK(contains(m, "8 bytes; TMA requires a multiple of 16"));
  // 64 f16 = 128 bytes do not fit a 64-byte swizzle.
  CHECK(errorOf(replace(g, "\"swizzle\": 128", "\"swizzle\": 64"), &m) ==
        "$.args[1].box[1]");
  CHECK(contains(m, "128 bytes, more than the 64-byte swizzle span"));
  CHECK(errorOf(replace(g, "\"swizzle\": 128", "\"swizzle\": 48")) ==
        "$.args[1].swizzle");
  CHECK(errorOf(replace(g, "\"oob_fill\": \"zero\"",
                        "\"oob_fill\": \"inf\"")) == "$.args[1].oob_fill");
  CHECK(errorOf(replace(g, "\"l2_promotion\": 256", "\"l2_promotion\": 100")) ==
        "$.args[3].l2_promotion");
  CHECK(errorOf(replace(g, "\"pass\": \"value\"", "\"pass\": \"ref\"")) ==
        "$.args[1].pass");
  CHECK(errorOf(replace(g, "\"buffer\": \"A\"", "\"buffer\": \"Z\""), &m) ==
        "$.args[1].buffer");
  CHECK(contains(m, "no argument is named \"Z\""));
  CHECK(errorOf(replace(g, "\"buffer\": \"A\"", "\"buffer\": \"n\""), &m) ==
        "$.args[1].buffer");
  CHECK(contains(m, "is a scalar, not a buffer"));
  CHECK(errorOf(replace(g, "\"buffer\": 2", "\"buffer\": 1"), &m) ==
        "$.args[3].buffer");
  CHECK(contains(m, "is a tensor map, not a buffer"));
  CHECK(errorOf(replace(g, "\"buffer\": 2", "\"buffer\": 9")) ==
        "$.args[3].buffer");
  CHECK(errorOf(replace(g, "\"buffer\": 2", "\"buffer\": [2]")) ==
        "$.args[3].buffer");
  CHECK(errorOf(replace(g, "\"kind\": \"tensor_map\", \"buffer\": \"A\"",
                        "\"kind\": \"tmap\", \"buffer\": \"A\"")) ==
        "$.args[1].kind");
  CHECK(errorOf(replace(g, "\"pass\": \"value\"", "\"dtype\": \"f16\"")) ==
        "$.args[1].dtype");
  CHECK(errorOf(replace(g, "\"param\": false}", "\"param\": 0}")) ==
        "$.args[0].param");
  // 60 f16 = 120-byte rows: TMA needs 16-byte strides; the error names the
  // tensor map and its buffer.
  CHECK(errorOf(replace(g, "\"shape\": [256, 128]", "\"shape\": [256, 60]"),
                &m) == "$.args[1].buffer");
  CHECK(contains(m, "tensor map 'tmA' over buffer 'A' (f16 [256, 60])"));
  CHECK(contains(m, "120 bytes; TMA requires global strides that are "
                    "multiples of 16 bytes"));
  // Rank 6.
  CHECK(errorOf(replace(replace(g, "\"shape\": [256, 128]",
                                "\"shape\": [2, 2, 2, 2, 2, 128]"),
                        "\"box\": [128, 64]", "\"box\": [1, 1, 1, 1, 1, 64]"),
                &m) == "$.args[1].buffer");
  CHECK(contains(m, "rank 1 to 5, not 6"));
  // NaN fill needs a float buffer.
  std::string ints = R"({"module": "k.ptx", "kernel": "k", "grid": 1,
    "block": 32, "args": [{"name": "I", "dtype": "i32", "shape": [64, 64]},
      {"kind": "tensor_map", "buffer": "I", "box": [8, 8],
       "oob_fill": "nan"}]})";
  CHECK(errorOf(ints, &m) == "$.args[1].oob_fill");
  CHECK(contains(m, "needs a floating-point buffer"));
  // A check must not take a tensor map for a matrix.
  std::string chk =
      replace(g, "\"args\"",
              "\"check\": {\"kind\": \"gemm\", \"A\": 0, \"B\": 3, \"C\": 4, "
              "\"M\": 256, \"N\": 32, \"K\": 64}, \"args\"");
  CHECK(errorOf(chk, &m) == "$.check.B");
  CHECK(contains(m, "a tensor map, not a buffer"));
}

TEST_CASE("\"sms\" grids and clusters", "[spec][hopper]") {
  std::string g = kTma, m;
  LaunchSpec s = parseLaunchSpec(
      parseJson(replace(g, "\"grid\": [4, 2]",
                        "\"grid\": [\"sms\", 2], \"cluster\": [2, 1]")),
      "");
  CHECK(s.gridSms[0]);
  CHECK_FALSE(s.gridSms[1]);
  CHECK(s.launch.grid[1] == 2);
  CHECK(s.launch.cluster[0] == 2);
  CHECK(s.launch.cluster[1] == 1);
  CHECK(s.launch.cluster[2] == 1);
  CHECK(s.launch.hasCluster());

  DeviceLimits lim;
  lim.multiprocessors = 132;
  LaunchConfig c = resolveLaunch(s, lim);
  CHECK(c.grid[0] == 132);
  CHECK(c.grid[1] == 2);
  lim.multiprocessors = 133; // rounded down to whole clusters
  CHECK(resolveLaunch(s, lim).grid[0] == 132);
  lim.multiprocessors = 0;
  CHECK_THROWS_AS(resolveLaunch(s, lim), RuntimeError);
  lim.multiprocessors = 1;
  try {
    resolveLaunch(s, lim);
    FAIL("one SM, cluster of two accepted");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::Launch);
    CHECK(contains(e.what(), "smaller than cluster.x = 2"));
  }

  LaunchSpec whole = parseLaunchSpec(
      parseJson(replace(g, "\"grid\": [4, 2]", "\"grid\": \"sms\"")), "");
  CHECK(whole.gridSms[0]);
  lim.multiprocessors = 78;
  LaunchConfig w = resolveLaunch(whole, lim);
  CHECK(w.grid[0] == 78);
  CHECK(w.grid[1] == 1);
  CHECK_FALSE(w.hasCluster());

  CHECK(errorOf(replace(g, "\"grid\": [4, 2]", "\"grid\": [\"smx\", 2]"), &m) ==
        "$.grid[0]");
  CHECK(contains(m, "\"sms\""));
  CHECK(errorOf(replace(g, "\"grid\": [4, 2]",
                        "\"grid\": [4, 2], "
                        "\"cluster\": [3]"),
                &m) == "$.cluster[0]");
  CHECK(contains(m, "grid.x = 4 is not a multiple of cluster.x = 3"));
  CHECK(errorOf(replace(g, "\"grid\": [4, 2]",
                        "\"grid\": [4, 4], \"cluster\": [4, 4]"),
                &m) == "$.cluster");
  CHECK(contains(m, "16 blocks exceeds the portable maximum of 8"));
  CHECK(contains(m, "non-portable"));
  CHECK(errorOf(replace(g, "\"grid\": [4, 2]",
                        "\"grid\": [4, 2], \"cluster\": [0]")) ==
        "$.cluster[0]");
  CHECK(errorOf(replace(g, "\"grid\": [4, 2]",
                        "\"grid\": [4, 2], \"cluster\": \"2\"")) ==
        "$.cluster");
  // [1, 1, 1] is no cluster at all.
  LaunchSpec one = parseLaunchSpec(
      parseJson(replace(g, "\"grid\": [4, 2]",
                        "\"grid\": [4, 2], \"cluster\": [1, 1, 1]")),
      "");
  CHECK_FALSE(one.launch.hasCluster());
}

TEST_CASE("gemm check: b_layout and bf16 tolerances", "[spec][hopper]") {
  const char *base = R"({"module": "k.ptx", "kernel": "k", "grid": 1,
    "block": 32, "args": [
      {"dtype": "bf16", "shape": [32, 64]}, {"dtype": "bf16", "shape": [16, 64]},
      {"dtype": "bf16", "shape": [32, 16], "role": "output"}],
    "check": {"kind": "gemm", "A": 0, "B": 1, "C": 2, "M": 32, "N": 16,
              "K": 64, "b_layout": "col-major"}})";
  LaunchSpec s = parseLaunchSpec(parseJson(base), "");
  CHECK(s.check.bTransposed);
  CHECK_FALSE(s.check.aTransposed);
  CHECK(s.check.layout == "nt");
  CHECK(s.check.rtol == 0.015625); // bf16 output default
  CHECK(s.check.atol == 1e-2);
  std::string g = base, m;
  LaunchSpec rm = parseLaunchSpec(
      parseJson(replace(g, "\"col-major\"", "\"row-major\"")), "");
  CHECK_FALSE(rm.check.bTransposed);
  LaunchSpec f32 = parseLaunchSpec(
      parseJson(replace(g, "{\"dtype\": \"bf16\", \"shape\": [32, 16]",
                        "{\"dtype\": \"f32\", \"shape\": [32, 16]")),
      "");
  CHECK(f32.check.rtol == 1e-2);
  LaunchSpec given = parseLaunchSpec(
      parseJson(replace(g, "\"b_layout\"", "\"rtol\": 1e-3, \"b_layout\"")),
      "");
  CHECK(given.check.rtol == 1e-3);
  LaunchSpec agree = parseLaunchSpec(
      parseJson(replace(g, "\"b_layout\"", "\"layout\": \"nt\", \"b_layout\"")),
      "");
  CHECK(agree.check.bTransposed);
  CHECK(errorOf(replace(g, "\"col-major\"", "\"diagonal\"")) ==
        "$.check.b_layout");
  CHECK(errorOf(replace(g, "\"b_layout\"", "\"layout\": \"nn\", \"b_layout\""),
                &m) == "$.check.b_layout");
  CHECK(contains(m, "contradicts"));
}
