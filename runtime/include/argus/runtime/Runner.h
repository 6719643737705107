//===- Runner.h - Run a launch spec end to end ----------------------------===//
#ifndef ARGUS_RUNTIME_RUNNER_H
#define ARGUS_RUNTIME_RUNNER_H

#include "argus/runtime/Device.h"
#include "argus/runtime/Json.h"
#include "argus/runtime/ProbeDecoder.h"
#include "argus/runtime/Spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace argus {
namespace rt {

struct RunOptions {
  uint32_t traceMaxBlocks = 0xFFFFFFFFu;
  bool buildTrace = true;
  std::string dumpProbesPath; ///< write the raw probe buffer here if set
};

struct RunResult {
  Json report;         ///< schema argus.run_report/1
  Json trace;          ///< Chrome trace (null when probes are off)
  /// The checked run's contents of every buffer that is not an "input"
  /// (indexed like the spec's arguments; empty for the others).
  std::vector<std::vector<uint8_t>> outputs;
  LaunchConfig launch; ///< as launched ("sms" grid entries resolved)
  bool checked = false;
  bool checkPassed = false;
  double medianMs = 0, minMs = 0, p90Ms = 0;
  uint64_t probeRecords = 0, probeDropped = 0, probeUnmatched = 0;
};

/// Load the module, allocate and initialise the arguments, warm up, time
/// `repetitions` launches (one event pair each), then do one verification
/// run with poisoned outputs and a fresh probe buffer, check the result and
/// decode the probes. Throws RuntimeError on failure.
RunResult runSpec(Device &dev, const LaunchSpec &spec,
                  const RunOptions &opts = {});

/// Whether the error names a place in the spec (path "$...", with its JSON
/// pointer); other errors may carry a file name as their path.
bool hasSpecPointer(const RuntimeError &e);

/// The error as a JSON object: kind, message, path, pointer, log.
Json errorJson(const RuntimeError &e);

/// One-paragraph human summary of a run.
std::string formatSummary(const LaunchSpec &spec, const RunResult &r);

/// Timing statistics of a sample (ms): {"median","min","p90","mean"}.
Json timingStats(const std::vector<double> &samplesMs);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_RUNNER_H
