//===- DecoderTest.cpp - Probe buffer decoding on synthetic buffers -------===//
#include "argus/runtime/ProbeDecoder.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace argus::rt;

namespace {
/// Writes records with the device protocol (count/dropped per slot).
struct SyntheticBuffer {
  std::vector<uint8_t> buf;
  uint32_t slots, cap, wpb;
  SyntheticBuffer(uint32_t blocks, uint32_t wpb, uint32_t cap)
      : slots(blocks * wpb), cap(cap), wpb(wpb) {
    buf = makeProbeBuffer(slots, cap, wpb);
  }
  ArgusProbeSlot *slot(uint32_t s) {
    return reinterpret_cast<ArgusProbeSlot *>(buf.data() + 64 + 8 * s);
  }
  void emit(uint32_t block, uint32_t warp, uint32_t region, bool end,
            uint32_t iter, uint64_t ts, uint32_t hw = 7) {
    uint32_t s = block * wpb + warp;
    ArgusProbeSlot *sl = slot(s);
    uint32_t n = sl->count;
    if (n < cap) {
      ArgusProbeRecord r{region, end ? 1u : 0u, block, warp, iter, hw, ts};
      std::memcpy(buf.data() + argusProbeRecordsOffset(slots) +
                      (uint64_t(s) * cap + n) * 32,
                  &r, sizeof(r));
      sl->count = n + 1;
    } else {
      sl->dropped += 1;
    }
  }
  DecodedProbes decode() const {
    return decodeProbeBuffer(buf.data(), buf.size());
  }
};
} // namespace

TEST_CASE("probe format layout", "[decoder]") {
  CHECK(sizeof(ArgusProbeHeader) == 64);
  CHECK(sizeof(ArgusProbeRecord) == 32);
  CHECK(argusProbeRecordsOffset(1) == 96);  // 72 rounded to 32
  CHECK(argusProbeRecordsOffset(4) == 96);  // 96
  CHECK(argusProbeRecordsOffset(5) == 128); // 104 -> 128
  CHECK(argusProbeBufferSize(4, 10) == 96 + 4 * 10 * 32);
  auto b = makeProbeBuffer(8, 16, 4, 32, ARGUS_CLOCK_GLOBALTIMER);
  ArgusProbeHeader h;
  std::memcpy(&h, b.data(), 64);
  CHECK(h.magic == 0x53475241u);
  CHECK(std::memcmp(b.data(), "ARGS", 4) == 0);
  CHECK(h.num_slots == 8);
  CHECK(h.capacity == 16);
  CHECK(h.warps_per_block == 4);
}

TEST_CASE("decode a normal buffer", "[decoder]") {
  SyntheticBuffer sb(2, 2, 16);
  for (uint32_t b = 0; b < 2; ++b)
    for (uint32_t w = 0; w < 2; ++w)
      for (uint32_t it = 0; it < 3; ++it) {
        uint64_t base = 1000 + b * 100000 + w * 10000 + it * 1000;
        sb.emit(b, w, 1, false, it, base);
        sb.emit(b, w, 1, true, it, base + 100 + it);
        sb.emit(b, w, 2, false, it, base + 200);
        sb.emit(b, w, 2, true, it, base + 500);
      }
  DecodedProbes d = sb.decode();
  CHECK(d.headerValid);
  CHECK_FALSE(d.truncated);
  CHECK(d.records == 2 * 2 * 3 * 4);
  CHECK(d.dropped == 0);
  CHECK(d.unmatchedBegin == 0);
  CHECK(d.unmatchedEnd == 0);
  CHECK(d.slotMismatch == 0);
  CHECK(d.t0 == 1000);
  REQUIRE(d.intervals.size() == 24);
  CHECK(d.begins.at(1) == 12);
  CHECK(d.ends.at(2) == 12);
  const ProbeInterval &iv = d.intervals[0];
  CHECK(iv.regionId == 1);
  CHECK(iv.end - iv.begin == 100);
  CHECK(iv.hwId == 7);
}

TEST_CASE("overflow drops are counted", "[decoder]") {
  SyntheticBuffer sb(1, 1, 4);
  for (uint32_t it = 0; it < 5; ++it) {
    sb.emit(0, 0, 1, false, it, 10 * it);
    sb.emit(0, 0, 1, true, it, 10 * it + 5);
  }
  DecodedProbes d = sb.decode();
  CHECK(d.records == 4);
  CHECK(d.dropped == 6);
  CHECK(d.slotsWithDrops == 1);
  CHECK(d.intervals.size() == 2);
  CHECK(d.unmatchedBegin == 0);
}

TEST_CASE("unmatched begin and end are reported", "[decoder]") {
  SyntheticBuffer sb(1, 2, 8);
  sb.emit(0, 0, 1, true, 0, 50);  // end without begin
  sb.emit(0, 0, 2, false, 0, 60); // begin never closed
  sb.emit(0, 0, 3, false, 4, 70); // matched pair
  sb.emit(0, 0, 3, true, 4, 90);
  sb.emit(0, 1, 3, false, 5, 70); // iteration mismatch: no match
  sb.emit(0, 1, 3, true, 6, 90);
  DecodedProbes d = sb.decode();
  CHECK(d.unmatchedEnd == 2);
  CHECK(d.unmatchedBegin == 2);
  REQUIRE(d.intervals.size() == 1);
  CHECK(d.intervals[0].iteration == 4);
  CHECK_FALSE(d.messages.empty());
}

TEST_CASE("nested same-region intervals match innermost first", "[decoder]") {
  SyntheticBuffer sb(1, 1, 8);
  sb.emit(0, 0, 1, false, ARGUS_PROBE_NO_ITERATION, 100);
  sb.emit(0, 0, 1, false, ARGUS_PROBE_NO_ITERATION, 110);
  sb.emit(0, 0, 1, true, ARGUS_PROBE_NO_ITERATION, 120);
  sb.emit(0, 0, 1, true, ARGUS_PROBE_NO_ITERATION, 200);
  DecodedProbes d = sb.decode();
  REQUIRE(d.intervals.size() == 2);
  CHECK(d.intervals[0].end - d.intervals[0].begin == 10);
  CHECK(d.intervals[1].end - d.intervals[1].begin == 100);
}

TEST_CASE("garbage counts are clamped and flagged", "[decoder]") {
  SyntheticBuffer sb(2, 1, 4);
  sb.emit(0, 0, 1, false, 0, 10);
  sb.emit(0, 0, 1, true, 0, 20);
  sb.slot(1)->count = 0xFFFFFFFFu; // garbage
  sb.slot(1)->dropped = 3;
  DecodedProbes d = sb.decode();
  CHECK(d.clampedSlots == 1);
  CHECK(d.records == 2 + 4); // slot 1 read up to capacity (zeros)
  CHECK(d.dropped == 3);
  CHECK(d.slotMismatch >= 1); // zero records claim block 0 in slot 1
  CHECK_FALSE(d.truncated);
}

TEST_CASE("truncated buffers never read out of bounds", "[decoder]") {
  SyntheticBuffer sb(4, 4, 8);
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t w = 0; w < 4; ++w)
      for (uint32_t it = 0; it < 4; ++it) {
        sb.emit(b, w, 1, false, it, 100 * it);
        sb.emit(b, w, 1, true, it, 100 * it + 10);
      }
  // Every prefix length decodes without crashing (ASan/valgrind-clean).
  for (size_t len : {size_t(0), size_t(10), size_t(63), size_t(64), size_t(100),
                     size_t(200), sb.buf.size() / 2, sb.buf.size() - 1}) {
    std::vector<uint8_t> prefix(sb.buf.begin(), sb.buf.begin() + len);
    DecodedProbes d = decodeProbeBuffer(prefix.data(), prefix.size());
    CHECK(d.truncated);
    CHECK(d.records <= 4 * 4 * 8);
  }
  DecodedProbes full = sb.decode();
  CHECK_FALSE(full.truncated);
  CHECK(full.intervals.size() == 64);
}

TEST_CASE("bad header: decoded with host geometry or rejected", "[decoder]") {
  SyntheticBuffer sb(1, 1, 4);
  sb.emit(0, 0, 1, false, 0, 10);
  sb.emit(0, 0, 1, true, 0, 30);
  ArgusProbeHeader expected;
  std::memcpy(&expected, sb.buf.data(), 64);
  std::memset(sb.buf.data(), 0xAB, 64); // kernel clobbered its header
  DecodedProbes d = sb.decode();
  CHECK_FALSE(d.headerValid);
  CHECK(d.records == 0);
  DecodeOptions o;
  o.haveExpected = true;
  o.expected = expected;
  DecodedProbes d2 = decodeProbeBuffer(sb.buf.data(), sb.buf.size(), o);
  CHECK_FALSE(d2.headerValid);
  CHECK(d2.intervals.size() == 1);
  // Huge geometry in a header that claims to be valid.
  SyntheticBuffer sb2(1, 1, 4);
  ArgusProbeHeader *h = reinterpret_cast<ArgusProbeHeader *>(sb2.buf.data());
  h->num_slots = 0xFFFFFFFFu;
  h->capacity = 0xFFFFFFFFu;
  DecodedProbes d3 = sb2.decode();
  CHECK(d3.truncated);
}

TEST_CASE("random garbage never crashes the decoder", "[decoder]") {
  uint64_t state = 12345;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint8_t> buf = makeProbeBuffer(8, 8, 2);
    for (size_t i = 64; i < buf.size(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      buf[i] = static_cast<uint8_t>(state >> 56);
    }
    DecodedProbes d = decodeProbeBuffer(buf.data(), buf.size() - trial % 7);
    CHECK(d.records <= 64);
    ReportOptions ro;
    Json rep = buildRegionReport(d, ro);
    CHECK(rep.is_object());
  }
}
