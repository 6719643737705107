//===- Spec.cpp - argus-run launch specification parser -------------------===//
#include "argus/runtime/Spec.h"
#include "argus/runtime/Error.h"

#include "argus/runtime/ProbeFormat.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace argus {
namespace rt {

std::string readFile(const std::string &path, ErrorKind kind) {
  // A directory opens as a stream on Linux but reads as nothing; say what
  // it is instead of letting the caller report an empty file.
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw RuntimeError(kind, "'" + path +
                                 "' is a directory, not a file (use --batch "
                                 "DIR to run every spec in a directory)");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw RuntimeError(kind, "cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    throw RuntimeError(kind, "cannot read '" + path + "'");
  return ss.str();
}

namespace {

[[noreturn]] void bad(const std::string &path, const std::string &msg) {
  throw RuntimeError(ErrorKind::Spec, path + ": " + msg, path);
}

const char *kindName(const Json &j) {
  switch (j.kind()) {
  case Json::Kind::Null:
    return "null";
  case Json::Kind::Bool:
    return "a boolean";
  case Json::Kind::Int:
  case Json::Kind::Double:
    return "a number";
  case Json::Kind::String:
    return "a string";
  case Json::Kind::Array:
    return "an array";
  case Json::Kind::Object:
    return "an object";
  }
  return "?";
}

void checkKeys(const Json &obj, const std::string &path,
               std::initializer_list<const char *> allowed) {
  for (const auto &kv : obj.asObject()) {
    if (!kv.first.empty() && (kv.first[0] == '_' || kv.first == "comment"))
      continue;
    bool ok = false;
    for (const char *a : allowed)
      if (kv.first == a)
        ok = true;
    if (!ok) {
      std::string list;
      for (const char *a : allowed)
        list += std::string(list.empty() ? "" : ", ") + a;
      bad(path + "." + kv.first,
          "unknown field (expected one of: " + list + ")");
    }
  }
}

const Json &require(const Json &obj, const std::string &path, const char *key) {
  const Json *v = obj.find(key);
  if (!v)
    bad(path + "." + key, "required field is missing");
  return *v;
}

std::string getString(const Json &v, const std::string &path) {
  if (!v.isString())
    bad(path, std::string("expected a string, got ") + kindName(v));
  return v.asString();
}

int64_t getInt(const Json &v, const std::string &path, int64_t lo, int64_t hi) {
  if (!v.isNumber() || (!v.isInt() && v.asDouble() != std::floor(v.asDouble())))
    bad(path, std::string("expected an integer, got ") + kindName(v));
  if (!v.isInt() && std::fabs(v.asDouble()) > 9.0e18)
    bad(path, "integer out of range");
  int64_t x = v.asInt();
  if (x < lo || x > hi)
    bad(path, "value " + std::to_string(x) + " out of range [" +
                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

double getNumber(const Json &v, const std::string &path) {
  if (!v.isNumber())
    bad(path, std::string("expected a number, got ") + kindName(v));
  return v.asDouble();
}

void getDims(const Json &v, const std::string &path, unsigned out[3]) {
  out[0] = out[1] = out[2] = 1;
  if (v.isNumber()) {
    out[0] = static_cast<unsigned>(getInt(v, path, 0, 0xFFFFFFFFll));
    return;
  }
  if (!v.isArray() || v.size() == 0 || v.size() > 3)
    bad(path, "expected an integer or an array of 1 to 3 integers");
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = static_cast<unsigned>(getInt(
        v.asArray()[i], path + "[" + std::to_string(i) + "]", 0, 0xFFFFFFFFll));
}

std::string resolvePath(const std::string &p, const std::string &baseDir) {
  return (p[0] == '/' || baseDir.empty()) ? p : baseDir + "/" + p;
}

/// Checks that an "init": {"file": ...} file exists and has exactly the
/// buffer's size (so --validate catches both).
void checkInitFileSize(const ArgSpec &s, const std::string &path) {
  struct stat st;
  if (::stat(s.initFile.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    bad(path, "cannot open init file '" + s.initFile + "'");
  uint64_t want = uint64_t(s.elements) * dtypeSize(s.dtype);
  if (uint64_t(st.st_size) != want)
    bad(path, "init file '" + s.initFile + "' has " +
                  std::to_string(uint64_t(st.st_size)) +
                  " bytes; the buffer (" + std::to_string(s.elements) + " x " +
                  dtypeName(s.dtype) + ") needs " + std::to_string(want));
}

ArgSpec parseArg(const Json &a, const std::string &path,
                 const std::string &baseDir) {
  if (!a.isObject())
    bad(path, std::string("expected an object, got ") + kindName(a));
  checkKeys(a, path,
            {"name", "kind", "dtype", "shape", "init", "seed", "range", "value",
             "role", "save"});
  ArgSpec s;
  if (const Json *n = a.find("name"))
    s.name = getString(*n, path + ".name");
  std::string kind;
  if (const Json *k = a.find("kind")) {
    kind = getString(*k, path + ".kind");
    if (kind != "buffer" && kind != "scalar")
      bad(path + ".kind",
          "expected \"buffer\" or \"scalar\", got \"" + kind + "\"");
  } else {
    kind = a.find("shape") ? "buffer" : (a.find("value") ? "scalar" : "");
    if (kind.empty())
      bad(path, "cannot tell a buffer (needs \"shape\") from a scalar "
                "(needs \"value\"); add \"kind\"");
  }
  s.isBuffer = kind == "buffer";
  std::string dt = getString(require(a, path, "dtype"), path + ".dtype");
  if (!parseDType(dt, s.dtype))
    bad(path + ".dtype", "unknown dtype \"" + dt +
                             "\" (expected f32, f16, bf16, f64, i8, u8, i32, "
                             "u32, i64, u64)");
  if (!s.isBuffer) {
    for (const char *k : {"shape", "init", "seed", "range", "role", "save"})
      if (a.find(k))
        bad(path + "." + k, "not allowed for a scalar argument");
    const Json &v = require(a, path, "value");
    if (s.dtype == DType::F16 || s.dtype == DType::BF16 ||
        s.dtype == DType::I8 || s.dtype == DType::U8)
      bad(path + ".dtype", "scalar arguments must be 32 or 64 bits wide");
    // The value must fit the dtype the kernel receives: a narrowing cast
    // would pass the kernel a different number than the spec says.
    if (isFloat(s.dtype)) {
      s.scalar = getNumber(v, path + ".value");
      if (s.dtype == DType::F32 && std::isfinite(s.scalar) &&
          std::fabs(s.scalar) > static_cast<double>(FLT_MAX))
        bad(path + ".value", "value " + v.dump() +
                                 " is out of range for f32 (largest finite "
                                 "magnitude 3.4028235e38)");
    } else {
      int64_t lo = INT64_MIN, hi = INT64_MAX;
      if (s.dtype == DType::I32) {
        lo = INT32_MIN;
        hi = INT32_MAX;
      } else if (s.dtype == DType::U32) {
        lo = 0;
        hi = UINT32_MAX;
      } else if (s.dtype == DType::U64) {
        lo = 0;
      }
      s.scalarInt = getInt(v, path + ".value", INT64_MIN, INT64_MAX);
      if (s.scalarInt < lo || s.scalarInt > hi)
        bad(path + ".value", "value " + std::to_string(s.scalarInt) +
                                 " is out of range for " + dtypeName(s.dtype) +
                                 " [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "]");
      s.scalar = static_cast<double>(s.scalarInt);
    }
    return s;
  }
  if (a.find("value"))
    bad(path + ".value", "not allowed for a buffer (use \"init\")");
  const Json &shape = require(a, path, "shape");
  if (!shape.isArray() || shape.size() == 0)
    bad(path + ".shape", "expected a non-empty array of positive integers");
  uint64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d =
        getInt(shape.asArray()[i], path + ".shape[" + std::to_string(i) + "]",
               1, int64_t(1) << 40);
    s.shape.push_back(d);
    n *= static_cast<uint64_t>(d);
    if (n * dtypeSize(s.dtype) > (uint64_t(1) << 40))
      bad(path + ".shape", "buffer larger than 1 TiB");
  }
  s.elements = static_cast<size_t>(n);
  if (const Json *r = a.find("role")) {
    s.role = getString(*r, path + ".role");
    if (s.role != "input" && s.role != "output" && s.role != "inout")
      bad(path + ".role", "expected \"input\", \"output\" or \"inout\", got "
                          "\"" +
                              s.role + "\"");
  }
  s.init = s.role == "output" ? "zeros" : "random";
  if (const Json *i = a.find("init")) {
    if (i->isObject()) {
      checkKeys(*i, path + ".init", {"file"});
      std::string f =
          getString(require(*i, path + ".init", "file"), path + ".init.file");
      if (f.empty())
        bad(path + ".init.file", "empty file path");
      s.init = "file";
      s.initFile = resolvePath(f, baseDir);
      checkInitFileSize(s, path + ".init.file");
    } else if (i->isNumber()) {
      s.init = "const";
      s.initValue = i->asDouble();
    } else {
      s.init = getString(*i, path + ".init");
      if (s.init == "ones") {
        s.init = "const";
        s.initValue = 1;
      } else if (s.init != "random" && s.init != "zeros")
        bad(path + ".init", "expected \"random\", \"zeros\", \"ones\", a "
                            "number or {\"file\": PATH}, got \"" +
                                s.init + "\"");
    }
  }
  if (const Json *sv = a.find("save")) {
    std::string f = getString(*sv, path + ".save");
    if (f.empty())
      bad(path + ".save", "empty file path");
    if (s.role == "input")
      bad(path + ".save", "only output and inout buffers can be saved (add "
                          "\"role\": \"output\" or \"inout\")");
    s.savePath = resolvePath(f, baseDir);
  }
  if (const Json *sd = a.find("seed"))
    s.seed = static_cast<uint64_t>(getInt(*sd, path + ".seed", 0, INT64_MAX));
  if (const Json *r = a.find("range")) {
    if (!r->isArray() || r->size() != 2)
      bad(path + ".range", "expected [lo, hi]");
    s.lo = getNumber(r->asArray()[0], path + ".range[0]");
    s.hi = getNumber(r->asArray()[1], path + ".range[1]");
    if (!(s.lo < s.hi))
      bad(path + ".range", "expected lo < hi");
  }
  return s;
}

} // namespace

LaunchSpec parseLaunchSpec(const Json &j, const std::string &baseDir,
                           const std::string &specPath) {
  const std::string root = "$";
  if (!j.isObject())
    bad(root, std::string("expected an object, got ") + kindName(j));
  checkKeys(j, root,
            {"name", "module", "format", "kernel", "grid", "block",
             "shared_mem", "args", "check", "probes", "warmup", "repetitions",
             "device", "backend"});
  LaunchSpec s;
  s.specPath = specPath;
  if (const Json *n = j.find("name"))
    s.name = getString(*n, "$.name");
  std::string mod = getString(require(j, root, "module"), "$.module");
  if (mod.empty())
    bad("$.module", "empty module path");
  s.modulePath = (mod[0] == '/' || baseDir.empty()) ? mod : baseDir + "/" + mod;
  s.format = moduleFormatFromPath(mod);
  if (const Json *f = j.find("format")) {
    std::string fs = getString(*f, "$.format");
    if (fs == "ptx")
      s.format = ModuleFormat::PTX;
    else if (fs == "cubin")
      s.format = ModuleFormat::Cubin;
    else if (fs == "hsaco")
      s.format = ModuleFormat::Hsaco;
    else if (fs == "auto")
      s.format = ModuleFormat::Auto;
    else
      bad("$.format", "expected \"ptx\", \"cubin\", \"hsaco\" or \"auto\"");
  }
  s.kernel = getString(require(j, root, "kernel"), "$.kernel");
  if (s.kernel.empty())
    bad("$.kernel", "empty kernel name");
  getDims(require(j, root, "grid"), "$.grid", s.launch.grid);
  getDims(require(j, root, "block"), "$.block", s.launch.block);
  if (const Json *sm = j.find("shared_mem"))
    s.launch.sharedMem =
        static_cast<unsigned>(getInt(*sm, "$.shared_mem", 0, 0x7FFFFFFF));
  if (const Json *w = j.find("warmup"))
    s.warmup = static_cast<int>(getInt(*w, "$.warmup", 0, 100000));
  if (const Json *r = j.find("repetitions"))
    s.repetitions = static_cast<int>(getInt(*r, "$.repetitions", 1, 1000000));
  if (const Json *d = j.find("device"))
    s.device = static_cast<int>(getInt(*d, "$.device", 0, 1024));
  if (const Json *b = j.find("backend")) {
    s.backend = getString(*b, "$.backend");
    if (s.backend != "auto" && s.backend != "cuda" && s.backend != "hip")
      bad("$.backend", "expected \"auto\", \"cuda\" or \"hip\"");
  }

  const Json &args = require(j, root, "args");
  if (!args.isArray())
    bad("$.args", std::string("expected an array, got ") + kindName(args));
  for (size_t i = 0; i < args.size(); ++i)
    s.args.push_back(parseArg(args.asArray()[i],
                              "$.args[" + std::to_string(i) + "]", baseDir));

  if (const Json *c = j.find("check")) {
    const std::string p = "$.check";
    if (!c->isObject())
      bad(p, std::string("expected an object, got ") + kindName(*c));
    checkKeys(*c, p,
              {"kind", "A", "B", "C", "M", "N", "K", "layout", "atol", "rtol"});
    CheckSpec &ck = s.check;
    ck.enabled = true;
    ck.kind = getString(require(*c, p, "kind"), p + ".kind");
    if (ck.kind != "gemm")
      bad(p + ".kind",
          "unknown check kind \"" + ck.kind + "\" (supported: gemm)");
    int nargs = static_cast<int>(s.args.size());
    auto bufIndex = [&](const char *k) {
      int idx = static_cast<int>(
          getInt(require(*c, p, k), p + "." + k, 0, nargs - 1));
      if (!s.args[idx].isBuffer)
        bad(p + "." + k,
            "argument " + std::to_string(idx) + " is a scalar, not a buffer");
      return idx;
    };
    ck.a = bufIndex("A");
    ck.b = bufIndex("B");
    ck.c = bufIndex("C");
    ck.M = getInt(require(*c, p, "M"), p + ".M", 1, int64_t(1) << 31);
    ck.N = getInt(require(*c, p, "N"), p + ".N", 1, int64_t(1) << 31);
    ck.K = getInt(require(*c, p, "K"), p + ".K", 1, int64_t(1) << 31);
    if (const Json *l = c->find("layout")) {
      ck.layout = getString(*l, p + ".layout");
      if (ck.layout == "row-major" || ck.layout == "nn") {
      } else if (ck.layout == "nt") {
        ck.bTransposed = true;
      } else if (ck.layout == "tn") {
        ck.aTransposed = true;
      } else if (ck.layout == "tt") {
        ck.aTransposed = ck.bTransposed = true;
      } else {
        bad(p + ".layout", "expected \"row-major\", \"nn\", \"nt\", \"tn\" "
                           "or \"tt\", got \"" +
                               ck.layout + "\"");
      }
    }
    if (const Json *v = c->find("atol"))
      ck.atol = getNumber(*v, p + ".atol");
    if (const Json *v = c->find("rtol"))
      ck.rtol = getNumber(*v, p + ".rtol");
    auto needElems = [&](int idx, uint64_t n, const char *k) {
      if (s.args[idx].elements < n)
        bad(p + "." + k, "argument " + std::to_string(idx) + " has " +
                             std::to_string(s.args[idx].elements) +
                             " elements; the GEMM needs " + std::to_string(n));
    };
    needElems(ck.a, uint64_t(ck.M) * ck.K, "A");
    needElems(ck.b, uint64_t(ck.K) * ck.N, "B");
    needElems(ck.c, uint64_t(ck.M) * ck.N, "C");
    if (!isFloat(s.args[ck.c].dtype))
      bad(p + ".C", "the output of a GEMM check must be a float buffer");
  }

  unsigned threads = s.launch.block[0] * s.launch.block[1] * s.launch.block[2];
  if (const Json *pr = j.find("probes")) {
    const std::string p = "$.probes";
    if (!pr->isObject())
      bad(p, std::string("expected an object, got ") + kindName(*pr));
    checkKeys(*pr, p,
              {"capacity_per_warp", "warps_per_block", "warp_size", "clock",
               "clock_hz", "regions", "timeline_warps"});
    ProbeSpec &ps = s.probes;
    ps.enabled = true;
    ps.capacity =
        static_cast<uint32_t>(getInt(require(*pr, p, "capacity_per_warp"),
                                     p + ".capacity_per_warp", 1, 1 << 24));
    if (const Json *w = pr->find("warp_size"))
      ps.warpSize =
          static_cast<uint32_t>(getInt(*w, p + ".warp_size", 1, 1024));
    ps.warpsPerBlock = (threads + ps.warpSize - 1) / ps.warpSize;
    if (const Json *w = pr->find("warps_per_block"))
      ps.warpsPerBlock =
          static_cast<uint32_t>(getInt(*w, p + ".warps_per_block", 1, 1024));
    if (const Json *ck = pr->find("clock")) {
      std::string cs = getString(*ck, p + ".clock");
      if (cs == "globaltimer")
        ps.clockKind = 0;
      else if (cs == "clock64")
        ps.clockKind = 1;
      else if (cs == "s_memtime")
        ps.clockKind = 2;
      else if (cs == "s_memrealtime")
        ps.clockKind = 3;
      else
        bad(p + ".clock", "expected \"globaltimer\", \"clock64\", "
                          "\"s_memtime\" or \"s_memrealtime\"");
    }
    if (const Json *hz = pr->find("clock_hz"))
      ps.clockHz = getNumber(*hz, p + ".clock_hz");
    if (const Json *tw = pr->find("timeline_warps"))
      ps.timelineWarps =
          static_cast<size_t>(getInt(*tw, p + ".timeline_warps", 0, INT32_MAX));
    if (const Json *rg = pr->find("regions")) {
      if (!rg->isObject())
        bad(p + ".regions", "expected an object {\"id\": \"name\"}");
      for (const auto &kv : rg->asObject()) {
        const std::string rp = p + ".regions." + kv.first;
        char *end = nullptr;
        unsigned long id = std::strtoul(kv.first.c_str(), &end, 10);
        if (kv.first.empty() || *end != '\0' || id > 0xFFFFFFFFul)
          bad(rp, "region keys must be decimal ids");
        ps.regions[static_cast<uint32_t>(id)] = getString(kv.second, rp);
      }
    }
    uint64_t blocks =
        uint64_t(s.launch.grid[0]) * s.launch.grid[1] * s.launch.grid[2];
    uint64_t slots = blocks * ps.warpsPerBlock;
    if (slots > 0xFFFFFFFFull)
      bad(p + ".warps_per_block", "too many probe slots");
    if (argusProbeBufferSize(slots, ps.capacity) > (uint64_t(1) << 34))
      bad(p + ".capacity_per_warp", "probe buffer would exceed 16 GiB");
  }
  return s;
}

LaunchSpec loadLaunchSpec(const std::string &file) {
  std::string text = readFile(file, ErrorKind::Spec);
  Json j;
  try {
    j = Json::parse(text);
  } catch (const JsonParseError &e) {
    throw RuntimeError(ErrorKind::Spec, file + ": " + e.what(), "$");
  }
  std::string dir;
  size_t slash = file.find_last_of('/');
  if (slash != std::string::npos)
    dir = file.substr(0, slash);
  LaunchSpec s = parseLaunchSpec(j, dir, file);
  if (s.name.empty()) {
    std::string base =
        slash == std::string::npos ? file : file.substr(slash + 1);
    if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0)
      base.resize(base.size() - 5);
    s.name = base;
  }
  return s;
}

std::vector<uint8_t> readInitFile(const ArgSpec &a,
                                  const std::string &jsonPath) {
  std::ifstream in(a.initFile, std::ios::binary);
  if (!in)
    bad(jsonPath, "cannot open init file '" + a.initFile + "'");
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
  uint64_t want = uint64_t(a.elements) * dtypeSize(a.dtype);
  if (data.size() != want)
    bad(jsonPath, "init file '" + a.initFile + "' has " +
                      std::to_string(data.size()) + " bytes; the buffer (" +
                      std::to_string(a.elements) + " x " + dtypeName(a.dtype) +
                      ") needs " + std::to_string(want));
  return data;
}

} // namespace rt
} // namespace argus
