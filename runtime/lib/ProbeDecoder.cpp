//===- ProbeDecoder.cpp - Probe buffer decoding, reports, traces ----------===//
#include "argus/runtime/ProbeDecoder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace argus {
namespace rt {

namespace {
template <typename T> T readAt(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

void note(DecodedProbes &d, const DecodeOptions &o, const std::string &m) {
  if (d.messages.size() < o.maxMessages)
    d.messages.push_back(m);
  else if (d.messages.size() == o.maxMessages)
    d.messages.push_back("... further messages suppressed");
}
} // namespace

std::vector<uint8_t> makeProbeBuffer(uint32_t numSlots, uint32_t capacity,
                                     uint32_t warpsPerBlock, uint32_t warpSize,
                                     uint32_t clockKind) {
  std::vector<uint8_t> buf(
      static_cast<size_t>(argusProbeBufferSize(numSlots, capacity)), 0);
  ArgusProbeHeader h{};
  h.magic = ARGUS_PROBE_MAGIC;
  h.version = ARGUS_PROBE_VERSION;
  h.num_slots = numSlots;
  h.capacity = capacity;
  h.record_size = ARGUS_PROBE_RECORD_SIZE;
  h.clock_kind = clockKind;
  h.warps_per_block = warpsPerBlock;
  h.warp_size = warpSize;
  std::memcpy(buf.data(), &h, sizeof(h));
  return buf;
}

DecodedProbes decodeProbeBuffer(const uint8_t *data, size_t size,
                                const DecodeOptions &opts) {
  DecodedProbes d;
  if (!data)
    size = 0;
  ArgusProbeHeader h{};
  if (size >= sizeof(ArgusProbeHeader)) {
    std::memcpy(&h, data, sizeof(h));
    d.headerValid = h.magic == ARGUS_PROBE_MAGIC &&
                    h.version == ARGUS_PROBE_VERSION &&
                    h.record_size == ARGUS_PROBE_RECORD_SIZE;
    if (!d.headerValid)
      note(d, opts,
           "invalid header (magic/version/record_size = " +
               std::to_string(h.magic) + "/" + std::to_string(h.version) + "/" +
               std::to_string(h.record_size) + ")");
  } else {
    d.truncated = true;
    note(d, opts,
         "buffer of " + std::to_string(size) +
             " bytes is shorter than the 64-byte header");
  }
  if (opts.haveExpected) {
    const ArgusProbeHeader &e = opts.expected;
    if (d.headerValid &&
        (h.num_slots != e.num_slots || h.capacity != e.capacity ||
         h.warps_per_block != e.warps_per_block)) {
      note(d, opts,
           "header geometry differs from the host allocation; using the "
           "host's (num_slots " +
               std::to_string(e.num_slots) + ", capacity " +
               std::to_string(e.capacity) + ")");
      d.headerValid = false;
    }
    if (!d.headerValid)
      h = e;
  } else if (!d.headerValid) {
    d.header = h;
    return d; // geometry unknown: nothing can be trusted
  }
  d.header = h;
  if (size < sizeof(ArgusProbeHeader))
    return d;

  const uint64_t numSlots = h.num_slots, cap = h.capacity;
  const uint64_t recOff = argusProbeRecordsOffset(numSlots);
  const uint64_t need = argusProbeBufferSize(numSlots, cap);
  if (need > size || numSlots * cap / (cap ? cap : 1) != numSlots) {
    d.truncated = true;
    note(d, opts,
         "buffer has " + std::to_string(size) + " bytes; its geometry needs " +
             std::to_string(need));
  }
  const uint64_t readableSlots = std::min<uint64_t>(
      numSlots, (size - ARGUS_PROBE_HEADER_SIZE) / ARGUS_PROBE_SLOT_SIZE);
  const uint64_t totalRecordsInBuf =
      size > recOff ? (size - recOff) / ARGUS_PROBE_RECORD_SIZE : 0;
  const uint32_t wpb = h.warps_per_block;

  bool haveT0 = false;
  struct Open {
    uint64_t ts;
    uint32_t hw;
  };
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Open>> open;

  for (uint64_t s = 0; s < readableSlots; ++s) {
    const uint8_t *sp =
        data + ARGUS_PROBE_HEADER_SIZE + s * ARGUS_PROBE_SLOT_SIZE;
    uint64_t count = readAt<uint32_t>(sp);
    uint32_t dropped = readAt<uint32_t>(sp + 4);
    d.dropped += dropped;
    if (dropped)
      ++d.slotsWithDrops;
    if (count > cap) {
      ++d.clampedSlots;
      note(d, opts,
           "slot " + std::to_string(s) + ": count " + std::to_string(count) +
               " exceeds capacity " + std::to_string(cap) + "; clamped");
      count = cap;
    }
    const uint32_t slotBlock = wpb ? static_cast<uint32_t>(s / wpb) : 0;
    const uint32_t slotWarp = wpb ? static_cast<uint32_t>(s % wpb) : 0;
    open.clear();
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t idx = s * cap + i;
      if (idx >= totalRecordsInBuf) {
        if (!d.truncated)
          note(d, opts,
               "records of slot " + std::to_string(s) +
                   " lie past the end of the buffer");
        d.truncated = true;
        break;
      }
      ArgusProbeRecord r;
      std::memcpy(&r, data + recOff + idx * ARGUS_PROBE_RECORD_SIZE, sizeof(r));
      ++d.records;
      if (!haveT0 || r.timestamp < d.t0) {
        d.t0 = r.timestamp;
        haveT0 = true;
      }
      if (r.flags & ~ARGUS_PROBE_FLAG_END)
        ++d.unknownFlags;
      if (wpb && (r.block != slotBlock || r.warp != slotWarp)) {
        if (d.slotMismatch == 0)
          note(d, opts,
               "slot " + std::to_string(s) + " holds a record of block " +
                   std::to_string(r.block) + " warp " + std::to_string(r.warp));
        ++d.slotMismatch;
      }
      auto key = std::make_pair(r.region_id, r.iteration);
      if (!(r.flags & ARGUS_PROBE_FLAG_END)) {
        ++d.begins[r.region_id];
        open[key].push_back(Open{r.timestamp, r.hw_id});
        continue;
      }
      ++d.ends[r.region_id];
      auto it = open.find(key);
      if (it == open.end() || it->second.empty()) {
        ++d.unmatchedEnd;
        if (d.unmatchedEnd <= 3)
          note(d, opts,
               "unmatched end of region " + std::to_string(r.region_id) +
                   " in slot " + std::to_string(s));
        continue;
      }
      Open b = it->second.back();
      it->second.pop_back();
      if (r.timestamp < b.ts) {
        ++d.negativeDuration;
        continue;
      }
      ProbeInterval iv;
      iv.regionId = r.region_id;
      iv.block = r.block;
      iv.warp = r.warp;
      iv.iteration = r.iteration;
      iv.hwId = b.hw;
      iv.begin = b.ts;
      iv.end = r.timestamp;
      d.intervals.push_back(iv);
    }
    for (auto &kv : open)
      if (!kv.second.empty()) {
        d.unmatchedBegin += kv.second.size();
        if (d.unmatchedBegin <= 3)
          note(d, opts,
               "unmatched begin of region " + std::to_string(kv.first.first) +
                   " in slot " + std::to_string(s));
      }
  }
  return d;
}

double percentile(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    return 0;
  if (q <= 0)
    return sorted.front();
  if (q >= 1)
    return sorted.back();
  double h = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Stats computeStats(std::vector<double> v) {
  Stats s;
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  s.count = v.size();
  for (double x : v)
    s.total += x;
  s.mean = s.total / static_cast<double>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.p50 = percentile(v, 0.5);
  s.p90 = percentile(v, 0.9);
  s.p99 = percentile(v, 0.99);
  return s;
}

const char *clockKindName(uint32_t kind) {
  switch (kind) {
  case ARGUS_CLOCK_GLOBALTIMER:
    return "globaltimer";
  case ARGUS_CLOCK_CLOCK64:
    return "clock64";
  case ARGUS_CLOCK_S_MEMTIME:
    return "s_memtime";
  case ARGUS_CLOCK_S_MEMREALTIME:
    return "s_memrealtime";
  }
  return "unknown";
}

const char *clockUnit(uint32_t kind) {
  switch (kind) {
  case ARGUS_CLOCK_GLOBALTIMER:
    return "ns";
  case ARGUS_CLOCK_CLOCK64:
  case ARGUS_CLOCK_S_MEMTIME:
    return "cycles";
  case ARGUS_CLOCK_S_MEMREALTIME:
    return "ticks_100MHz";
  }
  return "ticks";
}

double ticksPerMicrosecond(uint32_t kind, double clockHz) {
  if (clockHz > 0)
    return clockHz / 1e6;
  if (kind == ARGUS_CLOCK_S_MEMREALTIME)
    return 100.0;
  return 1000.0;
}

std::string regionName(const std::map<uint32_t, std::string> &names,
                       uint32_t id) {
  auto it = names.find(id);
  return it != names.end() ? it->second : "region_" + std::to_string(id);
}

Json field(Json value, const char *provenance) {
  Json f = Json::object();
  f.set("value", std::move(value));
  f.set("provenance", provenance);
  return f;
}

static Json iterationJson(uint32_t it) {
  return it == ARGUS_PROBE_NO_ITERATION ? Json() : Json(it);
}

static void putStats(Json &obj, const Stats &s) {
  obj.set("count", field(s.count, "derived"));
  obj.set("total", field(s.total, "derived"));
  obj.set("mean", field(s.mean, "derived"));
  obj.set("min", field(s.min, "derived"));
  obj.set("max", field(s.max, "derived"));
  obj.set("p50", field(s.p50, "derived"));
  obj.set("p90", field(s.p90, "derived"));
  obj.set("p99", field(s.p99, "derived"));
}

Json buildRegionReport(const DecodedProbes &d, const ReportOptions &opts) {
  const ArgusProbeHeader &h = d.header;
  Json rep = Json::object();
  rep.set("schema", "argus.region_report/1");
  Json legend = Json::object();
  legend.set("observed", "read directly from the device: probe records, "
                         "slot counters, event timings");
  legend.set("attributed",
             "apportioned to a region from evidence gathered at another "
             "granularity (not produced by this runtime)");
  legend.set("derived", "computed from observed values: durations, "
                        "matching, statistics");
  rep.set("provenance_legend", std::move(legend));

  Json clock = Json::object();
  clock.set("kind", clockKindName(h.clock_kind));
  clock.set("unit", clockUnit(h.clock_kind));
  clock.set("t0", field(d.t0, "observed"));
  rep.set("clock", std::move(clock));

  Json buf = Json::object();
  Json hdr = Json::object();
  hdr.set("valid", d.headerValid);
  hdr.set("magic", h.magic);
  hdr.set("version", h.version);
  hdr.set("num_slots", h.num_slots);
  hdr.set("capacity", h.capacity);
  hdr.set("record_size", h.record_size);
  hdr.set("clock_kind", h.clock_kind);
  hdr.set("warps_per_block", h.warps_per_block);
  hdr.set("warp_size", h.warp_size);
  hdr.set("provenance", "observed");
  buf.set("header", std::move(hdr));
  buf.set("records", field(d.records, "observed"));
  buf.set("dropped", field(d.dropped, "observed"));
  buf.set("slots_with_drops", field(d.slotsWithDrops, "derived"));
  Json an = Json::object();
  an.set("provenance", "derived");
  an.set("truncated", d.truncated);
  an.set("clamped_slots", d.clampedSlots);
  an.set("unmatched_begin", d.unmatchedBegin);
  an.set("unmatched_end", d.unmatchedEnd);
  an.set("slot_mismatch", d.slotMismatch);
  an.set("negative_duration", d.negativeDuration);
  an.set("unknown_flags", d.unknownFlags);
  Json msgs = Json::array();
  for (const auto &m : d.messages)
    msgs.push(m);
  an.set("messages", std::move(msgs));
  buf.set("anomalies", std::move(an));
  rep.set("buffer", std::move(buf));

  // Group intervals by region.
  std::map<uint32_t, std::vector<const ProbeInterval *>> byRegion;
  for (const auto &kv : d.begins)
    byRegion[kv.first];
  for (const auto &kv : d.ends)
    byRegion[kv.first];
  for (const auto &iv : d.intervals)
    byRegion[iv.regionId].push_back(&iv);

  Json regions = Json::array();
  for (const auto &kv : byRegion) {
    uint32_t id = kv.first;
    const auto &ivs = kv.second;
    Json r = Json::object();
    r.set("id", id);
    r.set("name", regionName(opts.regionNames, id));
    r.set("name_source", opts.regionNames.count(id) ? "spec" : "default");
    r.set("unit", clockUnit(h.clock_kind));
    auto b = d.begins.find(id), e = d.ends.find(id);
    r.set("begins", field(b != d.begins.end() ? b->second : 0, "observed"));
    r.set("ends", field(e != d.ends.end() ? e->second : 0, "observed"));

    std::vector<double> durs;
    durs.reserve(ivs.size());
    std::map<uint32_t, std::vector<double>> perIter;
    std::set<uint32_t> hw;
    std::set<std::pair<uint32_t, uint32_t>> warps;
    for (const ProbeInterval *iv : ivs) {
      double du = static_cast<double>(iv->end - iv->begin);
      durs.push_back(du);
      perIter[iv->iteration].push_back(du);
      hw.insert(iv->hwId);
      warps.insert({iv->block, iv->warp});
    }
    putStats(r, computeStats(durs));
    r.set("warps", field(static_cast<uint64_t>(warps.size()), "derived"));
    Json hwj = Json::array();
    for (uint32_t x : hw)
      hwj.push(x);
    r.set("hw_ids", field(std::move(hwj), "observed"));

    Json pi = Json::object();
    pi.set("provenance", "derived");
    Json iters = Json::array();
    for (auto &ikv : perIter) {
      Stats s = computeStats(ikv.second);
      Json it = Json::object();
      it.set("iteration", iterationJson(ikv.first));
      it.set("count", s.count);
      it.set("mean", s.mean);
      it.set("min", s.min);
      it.set("max", s.max);
      it.set("p50", s.p50);
      it.set("p90", s.p90);
      iters.push(std::move(it));
    }
    pi.set("iterations", std::move(iters));
    r.set("per_iteration", std::move(pi));

    // Per-warp timelines: intervals are in slot order, so contiguous.
    Json tl = Json::object();
    tl.set("provenance", "observed");
    tl.set("time_base", "t0");
    Json tw = Json::array();
    size_t nWarps = 0;
    bool truncated = false;
    for (size_t i = 0; i < ivs.size();) {
      size_t j = i;
      while (j < ivs.size() && ivs[j]->block == ivs[i]->block &&
             ivs[j]->warp == ivs[i]->warp)
        ++j;
      if (nWarps >= opts.maxTimelineWarps) {
        truncated = true;
        break;
      }
      ++nWarps;
      Json w = Json::object();
      w.set("block", ivs[i]->block);
      w.set("warp", ivs[i]->warp);
      w.set("hw_id", ivs[i]->hwId);
      Json list = Json::array();
      for (size_t k = i; k < j; ++k) {
        Json t = Json::array();
        t.push(ivs[k]->begin - d.t0);
        t.push(ivs[k]->end - d.t0);
        t.push(iterationJson(ivs[k]->iteration));
        list.push(std::move(t));
      }
      w.set("intervals", std::move(list));
      tw.push(std::move(w));
      i = j;
    }
    tl.set("truncated", truncated);
    tl.set("warps", std::move(tw));
    r.set("timelines", std::move(tl));
    regions.push(std::move(r));
  }
  rep.set("regions", std::move(regions));
  return rep;
}

Json buildChromeTrace(const DecodedProbes &d, const TraceOptions &opts) {
  const double tpu = ticksPerMicrosecond(d.header.clock_kind, opts.clockHz);
  Json events = Json::array();
  std::map<uint32_t, uint32_t> blockHw;
  std::set<std::pair<uint32_t, uint32_t>> threads;
  for (const auto &iv : d.intervals) {
    if (iv.block >= opts.maxBlocks)
      continue;
    Json e = Json::object();
    e.set("name", regionName(opts.regionNames, iv.regionId));
    e.set("cat", "region");
    e.set("ph", "X");
    e.set("pid", iv.block);
    e.set("tid", iv.warp);
    e.set("ts", static_cast<double>(iv.begin - d.t0) / tpu);
    e.set("dur", static_cast<double>(iv.end - iv.begin) / tpu);
    Json args = Json::object();
    args.set("region_id", iv.regionId);
    args.set("iteration", iterationJson(iv.iteration));
    args.set("hw_id", iv.hwId);
    e.set("args", std::move(args));
    events.push(std::move(e));
    blockHw.emplace(iv.block, iv.hwId);
    threads.insert({iv.block, iv.warp});
  }
  for (const auto &kv : blockHw) {
    Json m = Json::object();
    m.set("name", "process_name");
    m.set("ph", "M");
    m.set("pid", kv.first);
    Json a = Json::object();
    a.set("name", opts.processPrefix + " " + std::to_string(kv.first) +
                      " (hw " + std::to_string(kv.second) + ")");
    m.set("args", std::move(a));
    events.push(std::move(m));
  }
  for (const auto &t : threads) {
    Json m = Json::object();
    m.set("name", "thread_name");
    m.set("ph", "M");
    m.set("pid", t.first);
    m.set("tid", t.second);
    Json a = Json::object();
    a.set("name", "warp " + std::to_string(t.second));
    m.set("args", std::move(a));
    events.push(std::move(m));
  }
  Json tr = Json::object();
  tr.set("traceEvents", std::move(events));
  tr.set("displayTimeUnit", "ns");
  Json other = Json::object();
  other.set("generator", "argus-run");
  other.set("clock_kind", clockKindName(d.header.clock_kind));
  other.set("ticks_per_us", tpu);
  other.set("t0", d.t0);
  other.set("dropped_records", d.dropped);
  tr.set("otherData", std::move(other));
  return tr;
}

} // namespace rt
} // namespace argus
