//===- ProbeDecoder.h - Probe buffer decoding, region reports, traces -----===//
#ifndef ARGUS_RUNTIME_PROBEDECODER_H
#define ARGUS_RUNTIME_PROBEDECODER_H

#include "argus/runtime/Json.h"
#include "argus/runtime/ProbeFormat.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace argus {
namespace rt {

/// One matched begin/end pair.
struct ProbeInterval {
  uint32_t regionId = 0;
  uint32_t block = 0;
  uint32_t warp = 0;
  uint32_t iteration = ARGUS_PROBE_NO_ITERATION;
  uint32_t hwId = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct DecodeOptions {
  /// When set, the geometry the host allocated; used if the buffer's header
  /// disagrees (a kernel that clobbered its header) or is unreadable.
  bool haveExpected = false;
  ArgusProbeHeader expected{};
  /// At most this many anomaly messages are kept.
  size_t maxMessages = 20;
};

struct DecodedProbes {
  ArgusProbeHeader header{}; ///< geometry actually used for decoding
  bool headerValid = false;  ///< the buffer's own header was well-formed
  uint64_t records = 0;      ///< records read (after clamping)
  uint64_t dropped = 0;      ///< sum of slot `dropped` counters
  uint64_t slotsWithDrops = 0;
  uint64_t clampedSlots = 0; ///< slots whose count exceeded capacity
  uint64_t unmatchedBegin = 0;
  uint64_t unmatchedEnd = 0;
  uint64_t slotMismatch = 0; ///< record block/warp disagree with its slot
  uint64_t negativeDuration = 0;
  uint64_t unknownFlags = 0; ///< records with reserved flag bits set
  bool truncated = false;    ///< buffer shorter than its geometry needs
  uint64_t t0 = 0;           ///< smallest timestamp seen (0 if none)
  std::vector<std::string> messages;
  std::map<uint32_t, uint64_t> begins, ends; ///< per region id
  std::vector<ProbeInterval> intervals;      ///< in slot order
};

/// Decode a probe buffer copied back from the device. Never reads out of
/// bounds and never throws on garbage; problems are counted in the result.
DecodedProbes decodeProbeBuffer(const uint8_t *data, size_t size,
                                const DecodeOptions &opts = {});

/// Initialise a host image of a probe buffer (header + zeroed slots).
std::vector<uint8_t> makeProbeBuffer(uint32_t numSlots, uint32_t capacity,
                                     uint32_t warpsPerBlock,
                                     uint32_t warpSize = 32,
                                     uint32_t clockKind = 0);

/// Summary statistics. Percentiles interpolate linearly between closest
/// ranks: p(q) = x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] - x[floor(h)])
/// with h = q * (n - 1) over the sorted sample.
struct Stats {
  uint64_t count = 0;
  double total = 0, mean = 0, min = 0, max = 0, p50 = 0, p90 = 0, p99 = 0;
};
Stats computeStats(std::vector<double> values);
double percentile(const std::vector<double> &sorted, double q);

const char *clockKindName(uint32_t kind); ///< "globaltimer", ...
const char *clockUnit(uint32_t kind);     ///< "ns", "cycles", "ticks"
/// Clock ticks per microsecond; clockHz > 0 overrides the default
/// (globaltimer 1000, s_memrealtime 100, cycle counters 1000 = 1 GHz).
double ticksPerMicrosecond(uint32_t kind, double clockHz = 0);

struct ReportOptions {
  std::map<uint32_t, std::string> regionNames;
  size_t maxTimelineWarps = 256; ///< per region
};

/// {"value": v, "provenance": p}
Json field(Json value, const char *provenance);

/// The region report (schema argus.region_report/1, docs/Runtime.md).
Json buildRegionReport(const DecodedProbes &d, const ReportOptions &opts);

struct TraceOptions {
  std::map<uint32_t, std::string> regionNames;
  uint32_t maxBlocks = 0xFFFFFFFFu; ///< only blocks < maxBlocks
  double clockHz = 0;               ///< see ticksPerMicrosecond
  std::string processPrefix = "block";
};

/// Chrome Trace Event Format: "X" events, pid = block, tid = warp, ts/dur in
/// microseconds from t0, args {region_id, iteration, hw_id}.
Json buildChromeTrace(const DecodedProbes &d, const TraceOptions &opts);

std::string regionName(const std::map<uint32_t, std::string> &names,
                       uint32_t id);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_PROBEDECODER_H
