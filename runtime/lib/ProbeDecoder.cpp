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
  f["value"] = std::move(value);
  f["provenance"] = provenance;
  return f;
}

static Json iterationJson(uint32_t it) {
  return it == ARGUS_PROBE_NO_ITERATION ? Json() : Json(it);
}

static void putStats(Json &obj, const Stats &s) {
  obj["count"] = field(s.count, "derived");
  obj["total"] = field(s.total, "derived");
  obj["mean"] = field(s.mean, "derived");
  obj["min"] = field(s.min, "derived");
  obj["max"] = field(s.max, "derived");
  obj["p50"] = field(s.p50, "derived");
  obj["p90"] = field(s.p90, "derived");
  obj["p99"] = field(s.p99, "derived");
}

Json buildRegionReport(const DecodedProbes &d, const ReportOptions &opts) {
  const ArgusProbeHeader &h = d.header;
  Json rep = Json::object();
  rep["schema"] = "argus.region_report/1";
  Json legend = Json::object();
  legend["observed"] = "read directly from the device: probe records, "
                       "slot counters, event timings";
  legend["attributed"] =
      "apportioned to a region from evidence gathered at another "
      "granularity (not produced by this runtime)";
  legend["derived"] = "computed from observed values: durations, "
                      "matching, statistics";
  rep["provenance_legend"] = std::move(legend);

  Json clock = Json::object();
  clock["kind"] = clockKindName(h.clock_kind);
  clock["unit"] = clockUnit(h.clock_kind);
  clock["t0"] = field(d.t0, "observed");
  rep["clock"] = std::move(clock);

  Json buf = Json::object();
  Json hdr = Json::object();
  hdr["valid"] = d.headerValid;
  hdr["magic"] = h.magic;
  hdr["version"] = h.version;
  hdr["num_slots"] = h.num_slots;
  hdr["capacity"] = h.capacity;
  hdr["record_size"] = h.record_size;
  hdr["clock_kind"] = h.clock_kind;
  hdr["warps_per_block"] = h.warps_per_block;
  hdr["warp_size"] = h.warp_size;
  hdr["provenance"] = "observed";
  buf["header"] = std::move(hdr);
  buf["records"] = field(d.records, "observed");
  buf["dropped"] = field(d.dropped, "observed");
  buf["slots_with_drops"] = field(d.slotsWithDrops, "derived");
  Json an = Json::object();
  an["provenance"] = "derived";
  an["truncated"] = d.truncated;
  an["clamped_slots"] = d.clampedSlots;
  an["unmatched_begin"] = d.unmatchedBegin;
  an["unmatched_end"] = d.unmatchedEnd;
  an["slot_mismatch"] = d.slotMismatch;
  an["negative_duration"] = d.negativeDuration;
  an["unknown_flags"] = d.unknownFlags;
  Json msgs = Json::array();
  for (const auto &m : d.messages)
    msgs.push_back(m);
  an["messages"] = std::move(msgs);
  buf["anomalies"] = std::move(an);
  rep["buffer"] = std::move(buf);

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
    r["id"] = id;
    r["name"] = regionName(opts.regionNames, id);
    r["name_source"] = opts.regionNames.count(id) ? "spec" : "default";
    r["unit"] = clockUnit(h.clock_kind);
    auto b = d.begins.find(id), e = d.ends.find(id);
    r["begins"] = field(b != d.begins.end() ? b->second : 0, "observed");
    r["ends"] = field(e != d.ends.end() ? e->second : 0, "observed");

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
    r["warps"] = field(static_cast<uint64_t>(warps.size()), "derived");
    Json hwj = Json::array();
    for (uint32_t x : hw)
      hwj.push_back(x);
    r["hw_ids"] = field(std::move(hwj), "observed");

    Json pi = Json::object();
    pi["provenance"] = "derived";
    Json iters = Json::array();
    for (auto &ikv : perIter) {
      Stats s = computeStats(ikv.second);
      Json it = Json::object();
      it["iteration"] = iterationJson(ikv.first);
      it["count"] = s.count;
      it["mean"] = s.mean;
      it["min"] = s.min;
      it["max"] = s.max;
      it["p50"] = s.p50;
      it["p90"] = s.p90;
      iters.push_back(std::move(it));
    }
    pi["iterations"] = std::move(iters);
    r["per_iteration"] = std::move(pi);

    // Per-warp timelines: intervals are in slot order, so contiguous.
    Json tl = Json::object();
    tl["provenance"] = "observed";
    tl["time_base"] = "t0";
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
      w["block"] = ivs[i]->block;
      w["warp"] = ivs[i]->warp;
      w["hw_id"] = ivs[i]->hwId;
      Json list = Json::array();
      for (size_t k = i; k < j; ++k) {
        Json t = Json::array();
        t.push_back(ivs[k]->begin - d.t0);
        t.push_back(ivs[k]->end - d.t0);
        t.push_back(iterationJson(ivs[k]->iteration));
        list.push_back(std::move(t));
      }
      w["intervals"] = std::move(list);
      tw.push_back(std::move(w));
      i = j;
    }
    tl["truncated"] = truncated;
    tl["warps"] = std::move(tw);
    r["timelines"] = std::move(tl);
    regions.push_back(std::move(r));
  }
  rep["regions"] = std::move(regions);
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
    e["name"] = regionName(opts.regionNames, iv.regionId);
    e["cat"] = "region";
    e["ph"] = "X";
    e["pid"] = iv.block;
    e["tid"] = iv.warp;
    e["ts"] = static_cast<double>(iv.begin - d.t0) / tpu;
    e["dur"] = static_cast<double>(iv.end - iv.begin) / tpu;
    Json args = Json::object();
    args["region_id"] = iv.regionId;
    args["iteration"] = iterationJson(iv.iteration);
    args["hw_id"] = iv.hwId;
    e["args"] = std::move(args);
    events.push_back(std::move(e));
    blockHw.emplace(iv.block, iv.hwId);
    threads.insert({iv.block, iv.warp});
  }
  for (const auto &kv : blockHw) {
    Json m = Json::object();
    m["name"] = "process_name";
    m["ph"] = "M";
    m["pid"] = kv.first;
    Json a = Json::object();
    a["name"] = opts.processPrefix + " " + std::to_string(kv.first) + " (hw " +
                std::to_string(kv.second) + ")";
    m["args"] = std::move(a);
    events.push_back(std::move(m));
  }
  for (const auto &t : threads) {
    Json m = Json::object();
    m["name"] = "thread_name";
    m["ph"] = "M";
    m["pid"] = t.first;
    m["tid"] = t.second;
    Json a = Json::object();
    a["name"] = "warp " + std::to_string(t.second);
    m["args"] = std::move(a);
    events.push_back(std::move(m));
  }
  Json tr = Json::object();
  tr["traceEvents"] = std::move(events);
  tr["displayTimeUnit"] = "ns";
  Json other = Json::object();
  other["generator"] = "argus-run";
  other["clock_kind"] = clockKindName(d.header.clock_kind);
  other["ticks_per_us"] = tpu;
  other["t0"] = d.t0;
  other["dropped_records"] = d.dropped;
  tr["otherData"] = std::move(other);
  return tr;
}

} // namespace rt
} // namespace argus
