//===- Runner.cpp - Run a launch spec end to end --------------------------===//
#include "argus/runtime/Runner.h"

#include "DeviceResources.h"
#include "argus/runtime/DeviceReference.h"
#include "argus/runtime/Error.h"
#include "argus/runtime/Spec.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace argus {
namespace rt {

namespace {

Json dims(const unsigned d[3]) {
  Json a = Json::array();
  for (int i = 0; i < 3; ++i)
    a.push_back(d[i]);
  return a;
}

} // namespace

bool hasSpecPointer(const RuntimeError &e) {
  return !e.path.empty() && e.path[0] == '$';
}

Json errorJson(const RuntimeError &e) {
  Json j = Json::object();
  j["kind"] = errorKindName(e.kind);
  j["message"] = e.what();
  j["path"] = e.path.empty() ? Json() : Json(e.path);
  j["pointer"] = hasSpecPointer(e) ? Json(e.pointer) : Json();
  j["log"] = e.log.empty() ? Json() : Json(e.log);
  return j;
}

Json timingStats(const std::vector<double> &samples) {
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  Json t = Json::object();
  double sum = 0;
  for (double x : s)
    sum += x;
  t["median"] = field(percentile(s, 0.5), "derived");
  t["min"] = field(s.empty() ? 0.0 : s.front(), "derived");
  t["p90"] = field(percentile(s, 0.9), "derived");
  t["mean"] = field(s.empty() ? 0.0 : sum / s.size(), "derived");
  return t;
}

namespace {

/// The state one run builds up, phase by phase. Each phase below reads what
/// the earlier ones left here; the device resources are freed on every exit
/// path by `rs`.
struct RunState {
  RunState(Device &d, const LaunchSpec &s)
      : dev(d), spec(s), rs(d), host(s.args.size()), devPtr(s.args.size(), 0),
        scalarStore(s.args.size() + 1, 0), tmaps(s.args.size()),
        tmapDev(s.args.size(), 0), out(s.args.size()) {}

  Device &dev;
  const LaunchSpec &spec;
  LaunchConfig cfg; ///< "sms" resolved
  DeviceResources rs;
  FunctionHandle fn;
  std::vector<std::vector<uint8_t>> host; ///< initial contents per buffer
  std::vector<DevicePtr> devPtr;          ///< per buffer argument
  std::vector<uint64_t> scalarStore;      ///< per scalar argument
  std::vector<TensorMapBytes> tmaps;      ///< per tensor-map argument
  std::vector<DevicePtr> tmapDev;         ///< "pass": "pointer" copies
  std::vector<void *> argPtrs;            ///< kernelParams
  std::vector<uint8_t> probeImage;        ///< initial probe buffer
  DevicePtr probePtr = 0;
  size_t probeResetBytes = 0;            ///< header + slot counters
  std::vector<double> samples;           ///< ms per timed launch
  std::vector<std::vector<uint8_t>> out; ///< outputs of the checked run

  void resetProbes() {
    if (spec.probes.enabled)
      dev.copyToDevice(probePtr, probeImage.data(), probeResetBytes);
  }
};

/// The launch configuration and the kernel, first: a grid the device cannot
/// run or a module it cannot load should fail before any buffer is filled.
void loadKernel(RunState &st) {
  st.cfg = resolveLaunch(st.spec, st.dev.limits());
  validateLaunch(st.cfg, st.dev.limits());
  std::string image = st.spec.moduleImage.empty()
                          ? readFile(st.spec.modulePath, ErrorKind::Module)
                          : st.spec.moduleImage;
  st.rs.module = st.dev.loadModule(
      std::vector<char>(image.begin(), image.end()), st.spec.format);
  st.fn = st.dev.getFunction(st.rs.module, st.spec.kernel);
}

/// Scalars in the width the kernel reads and the host images of the
/// buffers. The images outlive the upload: they are the check's inputs and
/// what an "inout" buffer is restored to before the checked run.
void prepareHostData(RunState &st) {
  for (size_t i = 0; i < st.spec.args.size(); ++i) {
    const ArgSpec &a = st.spec.args[i];
    if (a.isTensorMap)
      continue;
    if (!a.isBuffer) {
      uint8_t *slot = reinterpret_cast<uint8_t *>(&st.scalarStore[i]);
      if (isFloat(a.dtype))
        storeElement(slot, a.dtype, 0, a.scalar);
      else if (a.dtype == DType::I64 || a.dtype == DType::U64)
        std::memcpy(slot, &a.scalarInt, 8);
      else
        storeElement(slot, a.dtype, 0, static_cast<double>(a.scalarInt));
      continue;
    }
    if (a.init == "host")
      st.host[i] = a.hostInit;
    else if (a.init == "file")
      st.host[i] =
          readInitFile(a, "$.args[" + std::to_string(i) + "].init.file");
    else if (a.init == "random")
      fillUniform(st.host[i], a.dtype, a.elements,
                  a.seed ? a.seed : 0x9E3779B9ull * (i + 1), a.lo, a.hi);
    else
      fillConstant(st.host[i], a.dtype, a.elements,
                   a.init == "const" ? a.initValue : 0.0);
  }
}

/// One device allocation per buffer, filled from its host image. Every run
/// allocates afresh, so nothing of an earlier run can leak into this one.
void uploadBuffers(RunState &st) {
  for (size_t i = 0; i < st.spec.args.size(); ++i) {
    if (!st.spec.args[i].isBuffer)
      continue;
    st.devPtr[i] = st.dev.alloc(st.host[i].size());
    st.rs.buffers.push_back(st.devPtr[i]);
    st.dev.copyToDevice(st.devPtr[i], st.host[i].data(), st.host[i].size());
  }
}

/// Tensor maps hold their buffer's device address, so they are encoded
/// after the upload. "value": the kernel parameter is the 128-byte map
/// itself (kernelParams points at the host copy); "pointer": a u64 device
/// address of a copy (MLIR nvgpu ABI). Returns the report's "tensor_maps".
Json encodeTensorMaps(RunState &st) {
  Json tmReport = Json::array();
  for (size_t i = 0; i < st.spec.args.size(); ++i) {
    const ArgSpec &a = st.spec.args[i];
    if (!a.isTensorMap)
      continue;
    const std::string path = "$.args[" + std::to_string(i) + "]";
    const TensorMapSpec &t = a.tensorMap;
    const ArgSpec &buf = st.spec.args[t.buffer];
    TensorMapDesc d = tensorMapDesc(a, buf, st.devPtr[t.buffer], path);
    st.dev.encodeTensorMap(d, st.tmaps[i],
                           "argument " + std::to_string(i) +
                               (a.name.empty() ? "" : " ('" + a.name + "')"));
    if (t.passPointer) {
      // Over-allocate so the copy is 128-byte aligned whatever the
      // allocator returns (TMA needs 64).
      DevicePtr raw = st.dev.alloc(sizeof(TensorMapBytes) + 128);
      st.rs.buffers.push_back(raw);
      st.tmapDev[i] = (raw + 127) & ~DevicePtr(127);
      st.dev.copyToDevice(st.tmapDev[i], &st.tmaps[i], sizeof(TensorMapBytes));
    }
    Json tj = Json::object();
    tj["arg"] = static_cast<uint64_t>(i);
    tj["name"] = a.name;
    tj["buffer"] = static_cast<uint64_t>(t.buffer);
    tj["pass"] = t.passPointer ? "pointer" : "value";
    tj["dtype"] = dtypeName(buf.dtype);
    Json shape = Json::array(), box = Json::array();
    for (size_t k = 0; k < buf.shape.size(); ++k) {
      shape.push_back(buf.shape[k]);
      box.push_back(t.box[k]);
    }
    tj["shape"] = std::move(shape);
    tj["box"] = std::move(box);
    tj["swizzle"] = t.swizzle;
    tj["oob_fill"] = t.oobNan ? "nan" : "zero";
    tj["l2_promotion"] = t.l2Promotion;
    tmReport.push_back(std::move(tj));
  }
  return tmReport;
}

/// kernelParams in the kernel's parameter order; "param": false buffers
/// are not parameters.
void collectKernelArgs(RunState &st) {
  for (size_t i = 0; i < st.spec.args.size(); ++i) {
    const ArgSpec &a = st.spec.args[i];
    if (a.isTensorMap)
      st.argPtrs.push_back(a.tensorMap.passPointer
                               ? static_cast<void *>(&st.tmapDev[i])
                               : static_cast<void *>(&st.tmaps[i]));
    else if (!a.isBuffer)
      st.argPtrs.push_back(&st.scalarStore[i]);
    else if (a.kernelParam)
      st.argPtrs.push_back(&st.devPtr[i]);
  }
}

/// The probe buffer, appended as the last kernel parameter. Sized from the
/// resolved grid: with "sms" the block count is only known now.
void setUpProbes(RunState &st) {
  const ProbeSpec &ps = st.spec.probes;
  if (!ps.enabled)
    return;
  const LaunchConfig &cfg = st.cfg;
  uint64_t blocks = uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2];
  if (blocks * ps.warpsPerBlock > 0xFFFFFFFFull ||
      argusProbeBufferSize(blocks * ps.warpsPerBlock, ps.capacity) >
          (uint64_t(1) << 34))
    throw specPathError(ErrorKind::Spec,
                        "$.probes: the probe buffer for " +
                            std::to_string(blocks) +
                            " blocks would exceed 2^32 slots or 16 GiB",
                        "$.probes");
  uint32_t slots = static_cast<uint32_t>(blocks * ps.warpsPerBlock);
  st.probeImage = makeProbeBuffer(slots, ps.capacity, ps.warpsPerBlock,
                                  ps.warpSize, ps.clockKind);
  st.probeResetBytes = static_cast<size_t>(argusProbeRecordsOffset(slots));
  st.probePtr = st.dev.alloc(st.probeImage.size());
  st.rs.buffers.push_back(st.probePtr);
  st.dev.copyToDevice(st.probePtr, st.probeImage.data(), st.probeImage.size());
  st.argPtrs.push_back(&st.probePtr);
}

/// Warm-up, then `repetitions` launches with one event pair each. The first
/// warm-up launch is synchronised so launch errors surface early, not as a
/// bad event time; probe slots are reset before every launch so a full
/// buffer does not change what the kernel does while it is timed.
void warmUpAndTime(RunState &st) {
  Device &dev = st.dev;
  for (int w = 0; w < st.spec.warmup; ++w) {
    st.resetProbes();
    dev.launch(st.fn, st.cfg, st.argPtrs);
    if (w == 0)
      dev.synchronize();
  }
  dev.synchronize();

  void *evStart = dev.createEvent();
  st.rs.events.push_back(evStart);
  void *evStop = dev.createEvent();
  st.rs.events.push_back(evStop);
  for (int r = 0; r < st.spec.repetitions; ++r) {
    st.resetProbes();
    dev.recordEvent(evStart);
    dev.launch(st.fn, st.cfg, st.argPtrs);
    dev.recordEvent(evStop);
    st.samples.push_back(dev.elapsedMs(evStart, evStop));
  }
  dev.synchronize();
}

/// One more launch whose results are checked: the original inputs, outputs
/// poisoned with NaN (0xFF bytes) so an element the kernel never writes
/// cannot pass, and fresh probe slots. Then the outputs come back.
void runCheckedAndReadBack(RunState &st) {
  Device &dev = st.dev;
  const size_t nargs = st.spec.args.size();
  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = st.spec.args[i];
    if (!a.isBuffer)
      continue;
    if (a.role == "output")
      dev.memset8(st.devPtr[i], 0xFF, st.host[i].size());
    else if (a.role == "inout")
      dev.copyToDevice(st.devPtr[i], st.host[i].data(), st.host[i].size());
  }
  st.resetProbes();
  dev.launch(st.fn, st.cfg, st.argPtrs);
  dev.synchronize();

  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = st.spec.args[i];
    if (!a.isBuffer || a.role == "input")
      continue;
    st.out[i].resize(st.host[i].size());
    dev.copyToHost(st.out[i].data(), st.devPtr[i], st.out[i].size());
  }
}

/// "save": the checked run's output buffers, as raw bytes. Returns the
/// report's "saved" list.
Json saveOutputs(const RunState &st) {
  Json saved = Json::array();
  for (size_t i = 0; i < st.spec.args.size(); ++i) {
    const ArgSpec &a = st.spec.args[i];
    if (!a.isBuffer || a.savePath.empty())
      continue;
    std::ofstream f(a.savePath, std::ios::binary | std::ios::trunc);
    if (f)
      f.write(reinterpret_cast<const char *>(st.out[i].data()),
              static_cast<std::streamsize>(st.out[i].size()));
    f.close(); // a full disk shows only when the buffer is written
    if (!f)
      throw specPathError(ErrorKind::Runtime,
                          "cannot write '" + a.savePath +
                              "' (save of argument " + std::to_string(i) + ")",
                          "$.args[" + std::to_string(i) + "].save");
    Json sj = Json::object();
    sj["arg"] = static_cast<uint64_t>(i);
    sj["name"] = a.name;
    sj["dtype"] = dtypeName(a.dtype);
    sj["file"] = a.savePath;
    sj["bytes"] = static_cast<uint64_t>(st.out[i].size());
    saved.push_back(std::move(sj));
  }
  return saved;
}

/// The report's "device" and "kernel": what ran where, as launched.
void reportLaunch(const RunState &st, Json tensorMaps, Json &rep) {
  const LaunchSpec &spec = st.spec;
  const LaunchConfig &cfg = st.cfg;
  Json devj = Json::object();
  devj["backend"] = st.dev.backend();
  devj["name"] = st.dev.name();
  devj["multiprocessors"] = st.dev.limits().multiprocessors;
  rep["device"] = std::move(devj);
  Json kj = Json::object();
  kj["module"] = spec.modulePath;
  kj["format"] = moduleFormatName(spec.format);
  kj["name"] = spec.kernel;
  kj["grid"] = dims(cfg.grid);
  if (spec.gridSms[0] || spec.gridSms[1] || spec.gridSms[2]) {
    Json g = Json::array();
    for (int i = 0; i < 3; ++i)
      g.push_back(spec.gridSms[i] ? Json("sms") : Json(spec.launch.grid[i]));
    kj["grid_spec"] = std::move(g);
  }
  kj["cluster"] = cfg.hasCluster() ? dims(cfg.cluster) : Json();
  kj["block"] = dims(cfg.block);
  kj["shared_mem"] = cfg.sharedMem;
  kj["probe_arg"] = spec.probes.enabled;
  kj["tensor_maps"] = std::move(tensorMaps);
  rep["kernel"] = std::move(kj);
}

/// The report's "timing" (every sample and their statistics) and the
/// summary numbers of the result.
void reportTiming(const RunState &st, RunResult &res, Json &rep) {
  Json tj = Json::object();
  tj["unit"] = "ms";
  tj["method"] = "device events around each launch";
  tj["warmup"] = st.spec.warmup;
  tj["repetitions"] = st.spec.repetitions;
  tj["probes_active"] = st.spec.probes.enabled;
  Json sj = Json::array();
  for (double x : st.samples)
    sj.push_back(x);
  tj["samples"] = field(std::move(sj), "observed");
  const Json stats = timingStats(st.samples);
  for (const auto &kv : stats.items())
    tj[kv.key()] = kv.value();
  rep["timing"] = std::move(tj);
  std::vector<double> s = st.samples;
  std::sort(s.begin(), s.end());
  res.medianMs = percentile(s, 0.5);
  res.minMs = s.empty() ? 0 : s.front();
  res.p90Ms = percentile(s, 0.9);
}

/// The GEMM check against the host reference computed from the host
/// images (the inputs the checked run saw), and the throughput it implies.
void checkResult(const RunState &st, RunResult &res, Json &rep) {
  const LaunchSpec &spec = st.spec;
  if (!spec.check.enabled) {
    rep["check"] = Json();
    return;
  }
  const CheckSpec &ck = spec.check;
  DType ta = spec.args[ck.a].dtype, tb = spec.args[ck.b].dtype;
  auto t0 = std::chrono::steady_clock::now();
  std::optional<std::vector<float>> onDevice;
  std::string why;
  if (ck.reference != "host") {
    onDevice = deviceReferenceGemm(st.dev, st.host[ck.a].data(), ta,
                                   st.host[ck.b].data(), tb, ck.M, ck.N, ck.K,
                                   ck.aTransposed, ck.bTransposed, why);
    if (!onDevice && ck.reference == "device")
      throw RuntimeError(ErrorKind::Spec,
                         "check.reference is \"device\", but " + why,
                         "$.check.reference");
  }
  std::vector<float> ref =
      onDevice
          ? std::move(*onDevice)
          : referenceGemm(st.host[ck.a].data(), ta, st.host[ck.b].data(), tb,
                          ck.M, ck.N, ck.K, ck.aTransposed, ck.bTransposed);
  double referenceMs = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - t0)
                           .count();
  const std::vector<uint8_t> &cOut =
      st.out[ck.c].empty() ? st.host[ck.c] : st.out[ck.c];
  CompareResult cr = compareToReference(cOut.data(), spec.args[ck.c].dtype, ref,
                                        ck.atol, ck.rtol);
  res.checked = true;
  res.checkPassed = cr.passed();
  Json cj = Json::object();
  cj["kind"] = ck.kind;
  cj["provenance"] = "derived";
  cj["passed"] = cr.passed();
  cj["M"] = ck.M;
  cj["N"] = ck.N;
  cj["K"] = ck.K;
  cj["layout"] = ck.layout;
  cj["reference"] = onDevice ? "device GEMM (argus-run's reference kernel), "
                               "f32 accumulation"
                             : "host GEMM, f32 accumulation";
  cj["reference_note"] = why.empty() ? Json() : Json(why);
  cj["reference_ms"] = referenceMs;
  cj["atol"] = ck.atol;
  cj["rtol"] = ck.rtol;
  cj["elements"] = static_cast<uint64_t>(cr.elements);
  cj["mismatches"] = static_cast<uint64_t>(cr.mismatches);
  cj["non_finite"] = static_cast<uint64_t>(cr.nonFinite);
  cj["max_abs_err"] = cr.maxAbsErr;
  cj["max_rel_err"] = cr.maxRelErr;
  cj["rel_fro_err"] = cr.relFroErr;
  if (cr.mismatches) {
    Json fm = Json::object();
    fm["index"] = static_cast<uint64_t>(cr.firstMismatch);
    fm["row"] = static_cast<uint64_t>(cr.firstMismatch / ck.N);
    fm["col"] = static_cast<uint64_t>(cr.firstMismatch % ck.N);
    fm["out"] = cr.firstOut;
    fm["ref"] = cr.firstRef;
    cj["first_mismatch"] = std::move(fm);
  } else {
    cj["first_mismatch"] = Json();
  }
  rep["check"] = std::move(cj);
  double flops = 2.0 * ck.M * ck.N * ck.K;
  Json th = Json::object();
  th["tflops_median"] = field(
      res.medianMs > 0 ? flops / (res.medianMs * 1e-3) / 1e12 : 0.0, "derived");
  rep["throughput"] = std::move(th);
}

/// The probe buffer of the checked run: optionally dumped raw, decoded
/// against the geometry the host allocated (a kernel may clobber the
/// header), summarised per region and, if asked, as a Chrome trace.
void decodeProbes(const RunState &st, const RunOptions &opts, RunResult &res,
                  Json &rep) {
  const ProbeSpec &ps = st.spec.probes;
  if (!ps.enabled) {
    rep["probes"] = Json();
    return;
  }
  std::vector<uint8_t> pb(st.probeImage.size());
  st.dev.copyToHost(pb.data(), st.probePtr, pb.size());
  if (!opts.dumpProbesPath.empty()) {
    std::ofstream f(opts.dumpProbesPath, std::ios::binary);
    if (f)
      f.write(reinterpret_cast<const char *>(pb.data()),
              static_cast<std::streamsize>(pb.size()));
    f.close(); // a full disk shows only when the buffer is written
    if (!f)
      throw RuntimeError(ErrorKind::Runtime,
                         "cannot write the probe buffer to '" +
                             opts.dumpProbesPath + "'",
                         opts.dumpProbesPath);
  }
  DecodeOptions dopt;
  dopt.haveExpected = true;
  std::memcpy(&dopt.expected, st.probeImage.data(), sizeof(ArgusProbeHeader));
  DecodedProbes d = decodeProbeBuffer(pb.data(), pb.size(), dopt);
  ReportOptions ropt;
  ropt.regionNames = ps.regions;
  ropt.maxTimelineWarps = ps.timelineWarps;
  rep["probes"] = buildRegionReport(d, ropt);
  res.probeRecords = d.records;
  res.probeDropped = d.dropped;
  res.probeUnmatched = d.unmatchedBegin + d.unmatchedEnd;
  if (opts.buildTrace) {
    TraceOptions topt;
    topt.regionNames = ps.regions;
    topt.maxBlocks = opts.traceMaxBlocks;
    topt.clockHz = ps.clockHz;
    res.trace = buildChromeTrace(d, topt);
  }
}

} // namespace

RunResult runSpec(Device &dev, const LaunchSpec &spec, const RunOptions &opts) {
  RunState st(dev, spec);
  loadKernel(st);
  prepareHostData(st);
  uploadBuffers(st);
  Json tensorMaps = encodeTensorMaps(st);
  collectKernelArgs(st);
  setUpProbes(st);
  warmUpAndTime(st);
  runCheckedAndReadBack(st);

  RunResult res;
  res.launch = st.cfg;
  Json saved = saveOutputs(st);
  Json rep = Json::object();
  rep["schema"] = "argus.run_report/1";
  rep["name"] = spec.name;
  rep["spec"] = spec.specPath;
  reportLaunch(st, std::move(tensorMaps), rep);
  rep["saved"] = std::move(saved);
  reportTiming(st, res, rep);
  checkResult(st, res, rep);
  decodeProbes(st, opts, res, rep);
  res.report = std::move(rep);
  res.outputs = std::move(st.out);
  return res;
}

static std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string formatSummary(const LaunchSpec &spec, const RunResult &r) {
  std::ostringstream os;
  const LaunchConfig &l = r.launch; // "sms" resolved
  os << "argus-run: " << spec.name << ": kernel " << spec.kernel << " grid "
     << l.grid[0] << "x" << l.grid[1] << "x" << l.grid[2];
  if (spec.gridSms[0] || spec.gridSms[1] || spec.gridSms[2])
    os << " (sms)";
  if (l.hasCluster())
    os << " cluster " << l.cluster[0] << "x" << l.cluster[1] << "x"
       << l.cluster[2];
  os << " block " << l.block[0] << "x" << l.block[1] << "x" << l.block[2]
     << " smem " << l.sharedMem;
  if (const Json *d = findMember(r.report, "device"))
    if (const Json *n = findMember(*d, "name"))
      os << " on " << n->get<std::string>();
  os << "\n  time: median " << fmt("%.4f", r.medianMs) << " ms, min "
     << fmt("%.4f", r.minMs) << " ms, p90 " << fmt("%.4f", r.p90Ms) << " ms ("
     << spec.repetitions << " reps, " << spec.warmup << " warm-up)";
  if (const Json *t = findMember(r.report, "throughput"))
    if (const Json *tf = findMember(*t, "tflops_median"))
      os << ", " << fmt("%.2f", tf->at("value").get<double>()) << " TFLOP/s";
  os << "\n";
  // The sections below are built by runSpec; a missing key is a bug there.
  if (const Json *c = findMember(r.report, "check"))
    if (c->is_object()) {
      os << "  check " << c->at("kind").get<std::string>() << " "
         << c->at("M").get<int64_t>() << "x" << c->at("N").get<int64_t>() << "x"
         << c->at("K").get<int64_t>() << ": "
         << (r.checkPassed ? "PASS" : "FAIL") << " (max_abs_err "
         << fmt("%.3g", c->at("max_abs_err").get<double>()) << ", max_rel_err "
         << fmt("%.3g", c->at("max_rel_err").get<double>()) << ", rel_fro_err "
         << fmt("%.3g", c->at("rel_fro_err").get<double>()) << ", mismatches "
         << c->at("mismatches").get<int64_t>() << ")\n";
    }
  const Json *p = findMember(r.report, "probes");
  if (p && p->is_object()) {
    os << "  probes: " << r.probeRecords << " records, " << r.probeDropped
       << " dropped, " << r.probeUnmatched << " unmatched";
    const Json &an = p->at("buffer").at("anomalies");
    int64_t clamped = an.at("clamped_slots").get<int64_t>();
    bool truncated = an.at("truncated").get<bool>();
    if (clamped || truncated)
      os << ", " << clamped << " clamped slots"
         << (truncated ? ", truncated" : "");
    os << "\n";
    char line[256];
    std::snprintf(line, sizeof(line),
                  "    %-14s %4s %9s %10s %10s %10s %10s %10s %10s  %s\n",
                  "region", "id", "count", "mean", "p50", "p90", "p99", "min",
                  "max", "unit");
    os << line;
    for (const Json &rg : p->at("regions")) {
      auto v = [&](const char *k) {
        return rg.at(k).at("value").get<double>();
      };
      std::snprintf(line, sizeof(line),
                    "    %-14s %4lld %9.0f %10.1f %10.1f %10.1f %10.1f %10.1f "
                    "%10.1f  %s\n",
                    rg.at("name").get<std::string>().c_str(),
                    static_cast<long long>(rg.at("id").get<int64_t>()),
                    v("count"), v("mean"), v("p50"), v("p90"), v("p99"),
                    v("min"), v("max"),
                    rg.at("unit").get<std::string>().c_str());
      os << line;
    }
  }
  return os.str();
}

} // namespace rt
} // namespace argus
