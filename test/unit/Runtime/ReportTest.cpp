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
  for (const Json &r : rep.at("regions"))
    if (r.at("id").get<int64_t>() == id)
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
  CHECK(rep.at("schema").get<std::string>() == "argus.region_report/1");
  const Json &r1 = regionById(rep, 1);
  CHECK(r1.at("name").get<std::string>() == "load_tile");
  CHECK(r1.at("name_source").get<std::string>() == "spec");
  CHECK(r1.at("count").at("value").get<int64_t>() == 16);
  CHECK(r1.at("count").at("provenance").get<std::string>() == "derived");
  CHECK(r1.at("begins").at("provenance").get<std::string>() == "observed");
  // durations of region 1: 10 + it, it = 0..3, four warps each
  CHECK(r1.at("min").at("value").get<double>() == 10);
  CHECK(r1.at("max").at("value").get<double>() == 13);
  CHECK(r1.at("mean").at("value").get<double>() == Approx(11.5));
  CHECK(r1.at("total").at("value").get<double>() == Approx(184));
  const Json &iters = r1.at("per_iteration").at("iterations");
  REQUIRE(iters.size() == 4);
  CHECK(iters[2].at("iteration").get<int64_t>() == 2);
  CHECK(iters[2].at("mean").get<double>() == Approx(12));
  const Json &tl = r1.at("timelines");
  CHECK(tl.at("provenance").get<std::string>() == "observed");
  CHECK(tl.at("warps").size() == 4);
  const Json &w0 = tl.at("warps")[0];
  REQUIRE(w0.at("intervals").size() == 4);
  const Json &first = w0.at("intervals")[0];
  CHECK(rep.at("clock").at("t0").at("value").get<int64_t>() == 5020);
  CHECK(first[0].get<int64_t>() == 0); // 5020 - t0
  CHECK(first[1].get<int64_t>() == 10);
  CHECK(first[2].get<int64_t>() == 0);
  CHECK(rep.at("buffer").at("dropped").at("provenance").get<std::string>() ==
        "observed");
  // Unnamed region falls back to a default name.
  ReportOptions none;
  Json rep2 = buildRegionReport(d, none);
  CHECK(regionById(rep2, 2).at("name").get<std::string>() == "region_2");
  CHECK(regionById(rep2, 2).at("name_source").get<std::string>() == "default");
  // Timeline truncation.
  ReportOptions small;
  small.maxTimelineWarps = 1;
  Json rep3 = buildRegionReport(d, small);
  CHECK(regionById(rep3, 1).at("timelines").at("truncated").get<bool>());
  // The report serialises and parses back.
  Json back = parseJson(dumpJson(rep, 2));
  CHECK(back.dump() == rep.dump());
}

TEST_CASE("chrome trace is well formed", "[trace]") {
  DecodedProbes d = sample();
  TraceOptions to;
  to.regionNames = {{1, "load_tile"}, {2, "mma"}};
  Json tr = parseJson(dumpJson(buildChromeTrace(d, to)));
  const Json *ev = findMember(tr, "traceEvents");
  REQUIRE(ev);
  REQUIRE(ev->is_array());
  size_t x = 0, m = 0;
  for (const Json &e : *ev) {
    REQUIRE(e.is_object());
    const std::string &ph = e.at("ph").get<std::string>();
    REQUIRE(findMember(e, "pid"));
    REQUIRE(e.at("name").is_string());
    if (ph == "X") {
      ++x;
      CHECK(e.at("ts").is_number());
      CHECK(e.at("dur").get<double>() >= 0);
      CHECK(e.at("tid").is_number());
      CHECK(e.at("args").at("iteration").is_number());
      CHECK(e.at("args").at("region_id").is_number());
      std::string n = e.at("name").get<std::string>();
      CHECK((n == "load_tile" || n == "mma"));
    } else {
      CHECK(ph == "M");
      ++m;
    }
  }
  CHECK(x == 32);
  CHECK(m == 2 + 4); // 2 blocks, 4 warps
  // mma of block 0 warp 0, iteration 1: begins 120 ns after t0, lasts 21 ns.
  const Json &e0 = (*ev)[0];
  CHECK(e0.at("ts").get<double>() == Approx(0.0));
  const Json &e3 = (*ev)[3];
  CHECK(e3.at("name").get<std::string>() == "mma");
  CHECK(e3.at("ts").get<double>() == Approx(0.120));
  CHECK(e3.at("dur").get<double>() == Approx(0.021));
  CHECK(e0.at("dur").get<double>() == Approx(0.010));
  TraceOptions one = to;
  one.maxBlocks = 1;
  Json tr1 = buildChromeTrace(d, one);
  size_t x1 = 0;
  for (const Json &e : tr1.at("traceEvents"))
    if (e.at("ph").get<std::string>() == "X") {
      ++x1;
      CHECK(e.at("pid").get<int64_t>() == 0);
    }
  CHECK(x1 == 16);
}
