//===- ReportTest.cpp - Region report statistics and Chrome traces --------===//
#include "argus/runtime/ProbeDecoder.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace argus::rt;

TEST_CASE("percentiles on known data", "[stats]") {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back(i); // unsorted input
  Stats s = computeStats(v);
  CHECK(s.count == 100);
  CHECK(s.total == Approx(5050));
  CHECK(s.mean == Approx(50.5));
  CHECK(s.min == 1);
  CHECK(s.max == 100);
  CHECK(s.p50 == Approx(50.5));
  CHECK(s.p90 == Approx(90.1));
  CHECK(s.p99 == Approx(99.01));
  Stats one = computeStats({42});
  CHECK(one.p50 == 42);
  CHECK(one.p99 == 42);
  Stats none = computeStats({});
  CHECK(none.count == 0);
  CHECK(percentile({1, 2, 3, 4, 5}, 0.5) == 3);
  CHECK(percentile({10, 20}, 0.25) == Approx(12.5));
}

namespace {
DecodedProbes sample() {
  std::vector<uint8_t> buf = makeProbeBuffer(4, 16, 2);
  uint64_t recOff = argusProbeRecordsOffset(4);
  for (uint32_t s = 0; s < 4; ++s) {
    uint32_t n = 0;
    for (uint32_t it = 0; it < 4; ++it) {
      for (uint32_t region = 1; region <= 2; ++region) {
        uint64_t t = 5000 + s * 1000 + it * 100 + region * 20;
        for (int end = 0; end < 2; ++end) {
          ArgusProbeRecord r{region,
                             uint32_t(end),
                             s / 2,
                             s % 2,
                             it,
                             s + 10,
                             t + end * (region * 10 + it)};
          std::memcpy(buf.data() + recOff + (s * 16 + n) * 32, &r, 32);
          ++n;
        }
      }
    }
    uint32_t cnt[2] = {n, 0};
    std::memcpy(buf.data() + 64 + 8 * s, cnt, 8);
  }
  return decodeProbeBuffer(buf.data(), buf.size());
}

const Json &regionById(const Json &rep, int64_t id) {
  for (const Json &r : rep.find("regions")->asArray())
    if (r.find("id")->asInt() == id)
      return r;
  FAIL("region not found");
  static Json none;
  return none;
}
} // namespace

TEST_CASE("region report statistics and provenance", "[report]") {
  DecodedProbes d = sample();
  REQUIRE(d.intervals.size() == 32);
  ReportOptions ro;
  ro.regionNames = {{1, "load_tile"}, {2, "mma"}};
  Json rep = buildRegionReport(d, ro);
  CHECK(rep.find("schema")->asString() == "argus.region_report/1");
  const Json &r1 = regionById(rep, 1);
  CHECK(r1.find("name")->asString() == "load_tile");
  CHECK(r1.find("name_source")->asString() == "spec");
  CHECK(r1.find("count")->find("value")->asInt() == 16);
  CHECK(r1.find("count")->find("provenance")->asString() == "derived");
  CHECK(r1.find("begins")->find("provenance")->asString() == "observed");
  // durations of region 1: 10 + it, it = 0..3, four warps each
  CHECK(r1.find("min")->find("value")->asDouble() == 10);
  CHECK(r1.find("max")->find("value")->asDouble() == 13);
  CHECK(r1.find("mean")->find("value")->asDouble() == Approx(11.5));
  CHECK(r1.find("total")->find("value")->asDouble() == Approx(184));
  const Json &iters = *r1.find("per_iteration")->find("iterations");
  REQUIRE(iters.size() == 4);
  CHECK(iters.asArray()[2].find("iteration")->asInt() == 2);
  CHECK(iters.asArray()[2].find("mean")->asDouble() == Approx(12));
  const Json &tl = *r1.find("timelines");
  CHECK(tl.find("provenance")->asString() == "observed");
  CHECK(tl.find("warps")->size() == 4);
  const Json &w0 = tl.find("warps")->asArray()[0];
  REQUIRE(w0.find("intervals")->size() == 4);
  const Json &first = w0.find("intervals")->asArray()[0];
  CHECK(rep.find("clock")->find("t0")->find("value")->asInt() == 5020);
  CHECK(first.asArray()[0].asInt() == 0); // 5020 - t0
  CHECK(first.asArray()[1].asInt() == 10);
  CHECK(first.asArray()[2].asInt() == 0);
  CHECK(rep.find("buffer")->find("dropped")->find("provenance")->asString() ==
        "observed");
  // Unnamed region falls back to a default name.
  ReportOptions none;
  Json rep2 = buildRegionReport(d, none);
  CHECK(regionById(rep2, 2).find("name")->asString() == "region_2");
  CHECK(regionById(rep2, 2).find("name_source")->asString() == "default");
  // Timeline truncation.
  ReportOptions small;
  small.maxTimelineWarps = 1;
  Json rep3 = buildRegionReport(d, small);
  CHECK(regionById(rep3, 1).find("timelines")->find("truncated")->asBool());
  // The report serialises and parses back.
  Json back = Json::parse(rep.dump(2));
  CHECK(back.dump() == rep.dump());
}

TEST_CASE("chrome trace is well formed", "[trace]") {
  DecodedProbes d = sample();
  TraceOptions to;
  to.regionNames = {{1, "load_tile"}, {2, "mma"}};
  Json tr = Json::parse(buildChromeTrace(d, to).dump());
  const Json *ev = tr.find("traceEvents");
  REQUIRE(ev);
  REQUIRE(ev->isArray());
  size_t x = 0, m = 0;
  for (const Json &e : ev->asArray()) {
    REQUIRE(e.isObject());
    const std::string &ph = e.find("ph")->asString();
    REQUIRE(e.find("pid"));
    REQUIRE(e.find("name")->isString());
    if (ph == "X") {
      ++x;
      CHECK(e.find("ts")->isNumber());
      CHECK(e.find("dur")->asDouble() >= 0);
      CHECK(e.find("tid")->isNumber());
      CHECK(e.find("args")->find("iteration")->isNumber());
      CHECK(e.find("args")->find("region_id")->isNumber());
      std::string n = e.find("name")->asString();
      CHECK((n == "load_tile" || n == "mma"));
    } else {
      CHECK(ph == "M");
      ++m;
    }
  }
  CHECK(x == 32);
  CHECK(m == 2 + 4); // 2 blocks, 4 warps
  // mma of block 0 warp 0, iteration 1: begins 120 ns after t0, lasts 21 ns.
  const Json &e0 = ev->asArray()[0];
  CHECK(e0.find("ts")->asDouble() == Approx(0.0));
  const Json &e3 = ev->asArray()[3];
  CHECK(e3.find("name")->asString() == "mma");
  CHECK(e3.find("ts")->asDouble() == Approx(0.120));
  CHECK(e3.find("dur")->asDouble() == Approx(0.021));
  CHECK(e0.find("dur")->asDouble() == Approx(0.010));
  TraceOptions one = to;
  one.maxBlocks = 1;
  Json tr1 = buildChromeTrace(d, one);
  size_t x1 = 0;
  for (const Json &e : tr1.find("traceEvents")->asArray())
    if (e.find("ph")->asString() == "X") {
      ++x1;
      CHECK(e.find("pid")->asInt() == 0);
    }
  CHECK(x1 == 16);
}
