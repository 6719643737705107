//===- Runner.cpp - Run a launch spec end to end --------------------------===//
#include "argus/runtime/Runner.h"
#include "argus/runtime/Error.h"
#include "argus/runtime/Spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace argus {
namespace rt {

namespace {

/// Frees device resources on every exit path.
struct DeviceResources {
  Device &dev;
  ModuleHandle module;
  std::vector<DevicePtr> buffers;
  std::vector<void *> events;
  explicit DeviceResources(Device &d) : dev(d) {}
  ~DeviceResources() {
    for (void *e : events)
      dev.destroyEvent(e);
    for (DevicePtr p : buffers)
      dev.free(p);
    dev.unloadModule(module);
  }
};

Json dims(const unsigned d[3]) {
  Json a = Json::array();
  for (int i = 0; i < 3; ++i)
    a.push_back(d[i]);
  return a;
}

} // namespace

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

RunResult runSpec(Device &dev, const LaunchSpec &spec, const RunOptions &opts) {
  RunResult res;
  const LaunchConfig cfg = resolveLaunch(spec, dev.limits());
  validateLaunch(cfg, dev.limits());
  res.launch = cfg;

  std::string image = readFile(spec.modulePath, ErrorKind::Module);
  DeviceResources rs(dev);
  rs.module = dev.loadModule(std::vector<char>(image.begin(), image.end()),
                             spec.format);
  FunctionHandle fn = dev.getFunction(rs.module, spec.kernel);

  // Host images and device buffers.
  const size_t nargs = spec.args.size();
  std::vector<std::vector<uint8_t>> host(nargs);
  std::vector<DevicePtr> devPtr(nargs, 0);
  std::vector<uint64_t> scalarStore(nargs + 1, 0);
  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = spec.args[i];
    if (a.isTensorMap)
      continue;
    if (!a.isBuffer) {
      uint8_t *slot = reinterpret_cast<uint8_t *>(&scalarStore[i]);
      if (isFloat(a.dtype))
        storeElement(slot, a.dtype, 0, a.scalar);
      else if (a.dtype == DType::I64 || a.dtype == DType::U64)
        std::memcpy(slot, &a.scalarInt, 8);
      else
        storeElement(slot, a.dtype, 0, static_cast<double>(a.scalarInt));
      continue;
    }
    if (a.init == "file")
      host[i] = readInitFile(a, "$.args[" + std::to_string(i) + "].init.file");
    else if (a.init == "random")
      fillUniform(host[i], a.dtype, a.elements,
                  a.seed ? a.seed : 0x9E3779B9ull * (i + 1), a.lo, a.hi);
    else
      fillConstant(host[i], a.dtype, a.elements,
                   a.init == "const" ? a.initValue : 0.0);
    devPtr[i] = dev.alloc(host[i].size());
    rs.buffers.push_back(devPtr[i]);
    dev.copyToDevice(devPtr[i], host[i].data(), host[i].size());
  }

  // Tensor maps hold their buffer's device address, so they are encoded
  // after the allocation above (every run allocates afresh). "value": the
  // kernel parameter is the 128-byte map itself (kernelParams points at the
  // host copy); "pointer": a u64 device address of a copy (MLIR nvgpu ABI).
  std::vector<TensorMapBytes> tmaps(nargs);
  std::vector<DevicePtr> tmapDev(nargs, 0);
  Json tmReport = Json::array();
  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = spec.args[i];
    if (!a.isTensorMap)
      continue;
    const std::string path = "$.args[" + std::to_string(i) + "]";
    const TensorMapSpec &t = a.tensorMap;
    const ArgSpec &buf = spec.args[t.buffer];
    TensorMapDesc d = tensorMapDesc(a, buf, devPtr[t.buffer], path);
    dev.encodeTensorMap(d, tmaps[i],
                        "argument " + std::to_string(i) +
                            (a.name.empty() ? "" : " ('" + a.name + "')"));
    if (t.passPointer) {
      // Over-allocate so the copy is 128-byte aligned whatever the
      // allocator returns (TMA needs 64).
      DevicePtr raw = dev.alloc(sizeof(TensorMapBytes) + 128);
      rs.buffers.push_back(raw);
      tmapDev[i] = (raw + 127) & ~DevicePtr(127);
      dev.copyToDevice(tmapDev[i], &tmaps[i], sizeof(TensorMapBytes));
    }
    Json tj = Json::object();
    tj["arg"] = static_cast<uint64_t>(i);
    tj["name"] = a.name;
    tj["buffer"] = static_cast<uint64_t>(t.buffer);
    tj["pass"] = t.passPointer ? "pointer" : "value";
    tj["dtype"] = dtypeName(buf.dtype);
    Json dims = Json::array(), box = Json::array();
    for (size_t k = 0; k < buf.shape.size(); ++k) {
      dims.push_back(buf.shape[k]);
      box.push_back(t.box[k]);
    }
    tj["shape"] = std::move(dims);
    tj["box"] = std::move(box);
    tj["swizzle"] = t.swizzle;
    tj["oob_fill"] = t.oobNan ? "nan" : "zero";
    tj["l2_promotion"] = t.l2Promotion;
    tmReport.push_back(std::move(tj));
  }

  std::vector<void *> argPtrs;
  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = spec.args[i];
    if (a.isTensorMap)
      argPtrs.push_back(a.tensorMap.passPointer
                            ? static_cast<void *>(&tmapDev[i])
                            : static_cast<void *>(&tmaps[i]));
    else if (!a.isBuffer)
      argPtrs.push_back(&scalarStore[i]);
    else if (a.kernelParam) // "param": false buffers are not parameters
      argPtrs.push_back(&devPtr[i]);
  }

  // Probe buffer: appended as the last kernel parameter.
  std::vector<uint8_t> probeImage;
  DevicePtr probePtr = 0;
  size_t probeResetBytes = 0;
  const ProbeSpec &ps = spec.probes;
  if (ps.enabled) {
    // The resolved grid: "sms" is only known now.
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
    probeImage = makeProbeBuffer(slots, ps.capacity, ps.warpsPerBlock,
                                 ps.warpSize, ps.clockKind);
    probeResetBytes = static_cast<size_t>(argusProbeRecordsOffset(slots));
    probePtr = dev.alloc(probeImage.size());
    rs.buffers.push_back(probePtr);
    dev.copyToDevice(probePtr, probeImage.data(), probeImage.size());
    argPtrs.push_back(&probePtr);
  }
  auto resetProbes = [&] {
    if (ps.enabled)
      dev.copyToDevice(probePtr, probeImage.data(), probeResetBytes);
  };

  // Warm-up (the first launch is synchronised so errors surface early).
  for (int w = 0; w < spec.warmup; ++w) {
    resetProbes();
    dev.launch(fn, cfg, argPtrs);
    if (w == 0)
      dev.synchronize();
  }
  dev.synchronize();

  // Timed repetitions, one event pair each.
  void *evStart = dev.createEvent();
  rs.events.push_back(evStart);
  void *evStop = dev.createEvent();
  rs.events.push_back(evStop);
  std::vector<double> samples;
  for (int r = 0; r < spec.repetitions; ++r) {
    resetProbes();
    dev.recordEvent(evStart);
    dev.launch(fn, cfg, argPtrs);
    dev.recordEvent(evStop);
    samples.push_back(dev.elapsedMs(evStart, evStop));
  }
  dev.synchronize();

  // Verification / probe run: original inputs, poisoned outputs (NaN),
  // fresh probe slots.
  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = spec.args[i];
    if (!a.isBuffer)
      continue;
    if (a.role == "output")
      dev.memset8(devPtr[i], 0xFF, host[i].size());
    else if (a.role == "inout")
      dev.copyToDevice(devPtr[i], host[i].data(), host[i].size());
  }
  resetProbes();
  dev.launch(fn, cfg, argPtrs);
  dev.synchronize();

  std::vector<std::vector<uint8_t>> out(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = spec.args[i];
    if (!a.isBuffer || a.role == "input")
      continue;
    out[i].resize(host[i].size());
    dev.copyToHost(out[i].data(), devPtr[i], out[i].size());
  }

  // "save": the checked run's output buffers, as raw bytes.
  Json saved = Json::array();
  for (size_t i = 0; i < nargs; ++i) {
    const ArgSpec &a = spec.args[i];
    if (!a.isBuffer || a.savePath.empty())
      continue;
    std::ofstream f(a.savePath, std::ios::binary | std::ios::trunc);
    if (f)
      f.write(reinterpret_cast<const char *>(out[i].data()),
              static_cast<std::streamsize>(out[i].size()));
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
    sj["bytes"] = static_cast<uint64_t>(out[i].size());
    saved.push_back(std::move(sj));
  }

  // Report.
  Json rep = Json::object();
  rep["schema"] = "argus.run_report/1";
  rep["name"] = spec.name;
  rep["spec"] = spec.specPath;
  Json devj = Json::object();
  devj["backend"] = dev.backend();
  devj["name"] = dev.name();
  devj["multiprocessors"] = dev.limits().multiprocessors;
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
  kj["probe_arg"] = ps.enabled;
  kj["tensor_maps"] = std::move(tmReport);
  rep["kernel"] = std::move(kj);
  rep["saved"] = std::move(saved);

  Json tj = Json::object();
  tj["unit"] = "ms";
  tj["method"] = "device events around each launch";
  tj["warmup"] = spec.warmup;
  tj["repetitions"] = spec.repetitions;
  tj["probes_active"] = ps.enabled;
  Json sj = Json::array();
  for (double x : samples)
    sj.push_back(x);
  tj["samples"] = field(std::move(sj), "observed");
  const Json st = timingStats(samples);
  for (const auto &kv : st.items())
    tj[kv.key()] = kv.value();
  rep["timing"] = std::move(tj);
  {
    std::vector<double> s = samples;
    std::sort(s.begin(), s.end());
    res.medianMs = percentile(s, 0.5);
    res.minMs = s.empty() ? 0 : s.front();
    res.p90Ms = percentile(s, 0.9);
  }

  if (spec.check.enabled) {
    const CheckSpec &ck = spec.check;
    std::vector<float> ref =
        referenceGemm(host[ck.a].data(), spec.args[ck.a].dtype,
                      host[ck.b].data(), spec.args[ck.b].dtype, ck.M, ck.N,
                      ck.K, ck.aTransposed, ck.bTransposed);
    const std::vector<uint8_t> &cOut =
        out[ck.c].empty() ? host[ck.c] : out[ck.c];
    CompareResult cr = compareToReference(cOut.data(), spec.args[ck.c].dtype,
                                          ref, ck.atol, ck.rtol);
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
    cj["reference"] = "host GEMM, f32 accumulation";
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
    th["tflops_median"] =
        field(res.medianMs > 0 ? flops / (res.medianMs * 1e-3) / 1e12 : 0.0,
              "derived");
    rep["throughput"] = std::move(th);
  } else {
    rep["check"] = Json();
  }

  if (ps.enabled) {
    std::vector<uint8_t> pb(probeImage.size());
    dev.copyToHost(pb.data(), probePtr, pb.size());
    if (!opts.dumpProbesPath.empty()) {
      std::ofstream f(opts.dumpProbesPath, std::ios::binary);
      if (f)
        f.write(reinterpret_cast<const char *>(pb.data()),
                static_cast<std::streamsize>(pb.size()));
      if (!f)
        throw RuntimeError(ErrorKind::Runtime,
                           "cannot write the probe buffer to '" +
                               opts.dumpProbesPath + "'",
                           opts.dumpProbesPath);
    }
    DecodeOptions dopt;
    dopt.haveExpected = true;
    std::memcpy(&dopt.expected, probeImage.data(), sizeof(ArgusProbeHeader));
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
  } else {
    rep["probes"] = Json();
  }
  res.report = std::move(rep);
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
