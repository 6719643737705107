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

RuntimeError specPathError(ErrorKind kind, const std::string &msg,
                           const std::string &path) {
  RuntimeError e(kind, msg, path);
  e.pointer = jsonPointerOf(path);
  return e;
}

namespace {

[[noreturn]] void bad(const std::string &path, const std::string &msg) {
  throw specPathError(ErrorKind::Spec, path + ": " + msg, path);
}

const char *kindName(const Json &j) {
  switch (j.type()) {
  case Json::value_t::null:
  case Json::value_t::discarded:
    return "null";
  case Json::value_t::boolean:
    return "a boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
  case Json::value_t::number_float:
    return "a number";
  case Json::value_t::string:
    return "a string";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::object:
    return "an object";
  case Json::value_t::binary:
    return "binary data";
  }
  return "?";
}

void checkKeys(const Json &obj, const std::string &path,
               std::initializer_list<const char *> allowed) {
  for (const auto &kv : obj.items()) {
    const std::string &key = kv.key();
    if (!key.empty() && (key[0] == '_' || key == "comment"))
      continue;
    bool ok = false;
    for (const char *a : allowed)
      if (key == a)
        ok = true;
    if (!ok) {
      std::string list;
      for (const char *a : allowed)
        list += std::string(list.empty() ? "" : ", ") + a;
      bad(memberPath(path, key),
          "unknown field (expected one of: " + list + ")");
    }
  }
}

const Json &require(const Json &obj, const std::string &path, const char *key) {
  const Json *v = findMember(obj, key);
  if (!v)
    bad(path + "." + key, "required field is missing");
  return *v;
}

std::string getString(const Json &v, const std::string &path) {
  if (!v.is_string())
    bad(path, std::string("expected a string, got ") + kindName(v));
  return v.get<std::string>();
}

int64_t getInt(const Json &v, const std::string &path, int64_t lo, int64_t hi) {
  if (!v.is_number() ||
      (v.is_number_float() && v.get<double>() != std::floor(v.get<double>())))
    bad(path, std::string("expected an integer, got ") + kindName(v));
  // Integers above INT64_MAX parse as uint64 (exact), larger ones as
  // doubles; neither fits an int64_t.
  if ((v.is_number_float() && std::fabs(v.get<double>()) > 9.0e18) ||
      (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
    bad(path, "integer out of range");
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    bad(path, "value " + std::to_string(x) + " out of range [" +
                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

double getNumber(const Json &v, const std::string &path) {
  if (!v.is_number())
    bad(path, std::string("expected a number, got ") + kindName(v));
  return v.get<double>();
}

void getDims(const Json &v, const std::string &path, unsigned out[3]) {
  out[0] = out[1] = out[2] = 1;
  if (v.is_number()) {
    out[0] = static_cast<unsigned>(getInt(v, path, 0, 0xFFFFFFFFll));
    return;
  }
  if (!v.is_array() || v.size() == 0 || v.size() > 3)
    bad(path, "expected an integer or an array of 1 to 3 integers");
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = static_cast<unsigned>(
        getInt(v[i], path + "[" + std::to_string(i) + "]", 0, 0xFFFFFFFFll));
}

/// "grid": like getDims, but an entry (or the whole value) may be "sms":
/// the device's multiprocessor count, for persistent kernels. Such entries
/// are left 0 here and flagged in `sms`.
void getGrid(const Json &v, const std::string &path, unsigned out[3],
             bool sms[3]) {
  sms[0] = sms[1] = sms[2] = false;
  auto one = [&](const Json &e, const std::string &p, int i) {
    if (e.is_string()) {
      if (e.get<std::string>() != "sms")
        bad(p, "expected an integer or \"sms\" (the multiprocessor count), "
               "got \"" +
                   e.get<std::string>() + "\"");
      sms[i] = true;
      out[i] = 0;
      return;
    }
    out[i] = static_cast<unsigned>(getInt(e, p, 0, 0xFFFFFFFFll));
  };
  out[0] = out[1] = out[2] = 1;
  if (v.is_number() || v.is_string()) {
    one(v, path, 0);
    return;
  }
  if (!v.is_array() || v.size() == 0 || v.size() > 3)
    bad(path, "expected an integer, \"sms\" or an array of 1 to 3 of them");
  for (size_t i = 0; i < v.size(); ++i)
    one(v[i], path + "[" + std::to_string(i) + "]", static_cast<int>(i));
}

/// The launch limits every device argus-run drives shares (CUDA's, which
/// HIP's are within: a grid of at most 2^31-1 x 65535 x 65535 blocks, a
/// block of at most 1024 x 1024 x 64 and 1024 threads in all): a launch
/// beyond them fails on every device, so --validate rejects it. A
/// dimension of 0 launches nothing.
void checkLaunchShape(const unsigned grid[3], const bool sms[3],
                      const unsigned block[3]) {
  static const char *axis[3] = {"x", "y", "z"};
  static const uint64_t gridMax[3] = {0x7FFFFFFFull, 65535, 65535};
  static const uint64_t blockMax[3] = {1024, 1024, 64};
  for (int i = 0; i < 3; ++i) {
    std::string gp = "$.grid[" + std::to_string(i) + "]";
    if (!sms[i] && grid[i] == 0)
      bad(gp, std::string("grid.") + axis[i] +
                  " = 0 launches no block; hint: every grid dimension is at "
                  "least 1");
    if (grid[i] > gridMax[i])
      bad(gp, std::string("grid.") + axis[i] + " = " + std::to_string(grid[i]) +
                  " exceeds the device limit of " + std::to_string(gridMax[i]) +
                  " blocks");
    std::string bp = "$.block[" + std::to_string(i) + "]";
    if (block[i] == 0)
      bad(bp, std::string("block.") + axis[i] +
                  " = 0 has no thread; hint: every block dimension is at "
                  "least 1");
    if (block[i] > blockMax[i])
      bad(bp, std::string("block.") + axis[i] + " = " +
                  std::to_string(block[i]) + " exceeds the device limit of " +
                  std::to_string(blockMax[i]) + " threads");
  }
  uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (threads > 1024)
    bad("$.block", "a block of " + std::to_string(threads) +
                       " threads exceeds the device limit of 1024");
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

/// A "kind": "tensor_map" argument; "buffer" is resolved and the box
/// checked against it once all arguments are known.
ArgSpec parseTensorMapArg(const Json &a, const std::string &path) {
  checkKeys(a, path,
            {"name", "kind", "buffer", "box", "swizzle", "oob_fill",
             "l2_promotion", "pass"});
  ArgSpec s;
  s.isBuffer = false;
  s.isTensorMap = true;
  TensorMapSpec &t = s.tensorMap;
  if (const Json *n = findMember(a, "name"))
    s.name = getString(*n, path + ".name");
  const Json &b = require(a, path, "buffer");
  if (b.is_string()) {
    t.bufferName = b.get<std::string>();
    if (t.bufferName.empty())
      bad(path + ".buffer", "empty buffer name");
  } else if (b.is_number()) {
    t.buffer = static_cast<int>(getInt(b, path + ".buffer", 0, INT32_MAX));
  } else {
    bad(path + ".buffer",
        std::string("expected a buffer argument's name or index, got ") +
            kindName(b));
  }
  const Json &box = require(a, path, "box");
  if (!box.is_array() || box.size() == 0)
    bad(path + ".box", "expected a non-empty array of integers in [1, 256]");
  for (size_t i = 0; i < box.size(); ++i)
    t.box.push_back(
        getInt(box[i], path + ".box[" + std::to_string(i) + "]", 1, 256));
  if (const Json *sw = findMember(a, "swizzle")) {
    int64_t v = getInt(*sw, path + ".swizzle", 0, 128);
    if (v != 0 && v != 32 && v != 64 && v != 128)
      bad(path + ".swizzle",
          "expected 0 (none), 32, 64 or 128 (bytes), got " + std::to_string(v));
    t.swizzle = static_cast<unsigned>(v);
  }
  if (const Json *o = findMember(a, "oob_fill")) {
    std::string v = getString(*o, path + ".oob_fill");
    if (v != "zero" && v != "nan")
      bad(path + ".oob_fill",
          "expected \"zero\" or \"nan\", got \"" + v + "\"");
    t.oobNan = v == "nan";
  }
  if (const Json *l = findMember(a, "l2_promotion")) {
    int64_t v = getInt(*l, path + ".l2_promotion", 0, 256);
    if (v != 0 && v != 64 && v != 128 && v != 256)
      bad(path + ".l2_promotion",
          "expected 0, 64, 128 or 256 (bytes), got " + std::to_string(v));
    t.l2Promotion = static_cast<unsigned>(v);
  }
  if (const Json *p = findMember(a, "pass")) {
    std::string v = getString(*p, path + ".pass");
    if (v != "value" && v != "pointer")
      bad(path + ".pass",
          "expected \"value\" or \"pointer\", got \"" + v + "\"");
    t.passPointer = v == "pointer";
  }
  return s;
}

ArgSpec parseArg(const Json &a, const std::string &path,
                 const std::string &baseDir) {
  if (!a.is_object())
    bad(path, std::string("expected an object, got ") + kindName(a));
  std::string kind;
  if (const Json *k = findMember(a, "kind")) {
    kind = getString(*k, path + ".kind");
    if (kind != "buffer" && kind != "scalar" && kind != "tensor_map")
      bad(path + ".kind", "expected \"buffer\", \"scalar\" or "
                          "\"tensor_map\", got \"" +
                              kind + "\"");
  } else {
    kind = findMember(a, "shape")   ? "buffer"
           : findMember(a, "value") ? "scalar"
           : findMember(a, "box")   ? "tensor_map"
                                    : "";
    if (kind.empty())
      bad(path, "cannot tell a buffer (needs \"shape\") from a scalar "
                "(needs \"value\"); add \"kind\"");
  }
  if (kind == "tensor_map")
    return parseTensorMapArg(a, path);
  checkKeys(a, path,
            {"name", "kind", "dtype", "shape", "init", "seed", "range", "value",
             "role", "save", "param"});
  ArgSpec s;
  if (const Json *n = findMember(a, "name"))
    s.name = getString(*n, path + ".name");
  s.isBuffer = kind == "buffer";
  std::string dt = getString(require(a, path, "dtype"), path + ".dtype");
  if (!parseDType(dt, s.dtype))
    bad(path + ".dtype", "unknown dtype \"" + dt +
                             "\" (expected f32, f16, bf16, f64, i8, u8, i32, "
                             "u32, i64, u64)");
  if (!s.isBuffer) {
    for (const char *k :
         {"shape", "init", "seed", "range", "role", "save", "param"})
      if (findMember(a, k))
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
      // u64 scalars take the whole range, exactly: scalarInt holds the
      // bit pattern the kernel receives.
      if (s.dtype == DType::U64 && v.is_number_unsigned()) {
        uint64_t u = v.get<uint64_t>();
        s.scalarInt = static_cast<int64_t>(u);
        s.scalar = static_cast<double>(u);
        return s;
      }
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
        bad(path + ".value",
            "value " + std::to_string(s.scalarInt) + " is out of range for " +
                dtypeName(s.dtype) + " [" + std::to_string(lo) + ", " +
                (s.dtype == DType::U64 ? std::to_string(UINT64_MAX)
                                       : std::to_string(hi)) +
                "]");
      s.scalar = static_cast<double>(s.scalarInt);
    }
    return s;
  }
  if (findMember(a, "value"))
    bad(path + ".value", "not allowed for a buffer (use \"init\")");
  const Json &shape = require(a, path, "shape");
  if (!shape.is_array() || shape.size() == 0)
    bad(path + ".shape", "expected a non-empty array of positive integers");
  uint64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = getInt(shape[i], path + ".shape[" + std::to_string(i) + "]", 1,
                       int64_t(1) << 40);
    s.shape.push_back(d);
    n *= static_cast<uint64_t>(d);
    if (n * dtypeSize(s.dtype) > (uint64_t(1) << 40))
      bad(path + ".shape", "buffer larger than 1 TiB");
  }
  s.elements = static_cast<size_t>(n);
  if (const Json *r = findMember(a, "role")) {
    s.role = getString(*r, path + ".role");
    if (s.role != "input" && s.role != "output" && s.role != "inout")
      bad(path + ".role", "expected \"input\", \"output\" or \"inout\", got "
                          "\"" +
                              s.role + "\"");
  }
  s.init = s.role == "output" ? "zeros" : "random";
  if (const Json *i = findMember(a, "init")) {
    if (i->is_object()) {
      checkKeys(*i, path + ".init", {"file"});
      std::string f =
          getString(require(*i, path + ".init", "file"), path + ".init.file");
      if (f.empty())
        bad(path + ".init.file", "empty file path");
      s.init = "file";
      s.initFile = resolvePath(f, baseDir);
      checkInitFileSize(s, path + ".init.file");
    } else if (i->is_number()) {
      s.init = "const";
      s.initValue = i->get<double>();
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
  if (const Json *sv = findMember(a, "save")) {
    std::string f = getString(*sv, path + ".save");
    if (f.empty())
      bad(path + ".save", "empty file path");
    if (s.role == "input")
      bad(path + ".save", "only output and inout buffers can be saved (add "
                          "\"role\": \"output\" or \"inout\")");
    s.savePath = resolvePath(f, baseDir);
  }
  if (const Json *pm = findMember(a, "param")) {
    if (!pm->is_boolean())
      bad(path + ".param",
          std::string("expected true or false, got ") + kindName(*pm));
    s.kernelParam = pm->get<bool>();
  }
  if (const Json *sd = findMember(a, "seed"))
    s.seed = static_cast<uint64_t>(getInt(*sd, path + ".seed", 0, INT64_MAX));
  if (const Json *r = findMember(a, "range")) {
    if (!r->is_array() || r->size() != 2)
      bad(path + ".range", "expected [lo, hi]");
    s.lo = getNumber((*r)[0], path + ".range[0]");
    s.hi = getNumber((*r)[1], path + ".range[1]");
    if (!(s.lo < s.hi))
      bad(path + ".range", "expected lo < hi");
  }
  return s;
}

/// A half-open range [lo, hi) of an envelope.
std::pair<int64_t, int64_t> getRange(const Json &r, const std::string &path) {
  if (!r.is_array() || r.size() != 2)
    bad(path, "expected [lo, hi]: the half-open range the proof covers");
  int64_t lo = getInt(r[0], path + "[0]", INT64_MIN, INT64_MAX);
  int64_t hi = getInt(r[1], path + "[1]", INT64_MIN, INT64_MAX);
  if (lo >= hi)
    bad(path, "an empty range");
  return {lo, hi};
}

[[noreturn]] void outsideEnvelope(const std::string &path,
                                  const std::string &what, int64_t v,
                                  std::pair<int64_t, int64_t> r) {
  bad(path, what + " is " + std::to_string(v) + ", outside [" +
                std::to_string(r.first) + ", " + std::to_string(r.second) +
                "): the kernel's proof covers launches inside the verifier "
                "model's ranges only, so this launch is refused (docs/"
                "Verifier.md, \"The model's limits\")");
}

/// "envelope": the ranges a launch must keep for the kernel's proof to
/// cover it (argus/Verify/ModelLimits.h, written by the Python launcher):
/// {"grid": [lo, hi], "scalars": {name: [lo, hi], ...}}. Checked after
/// the grid and the arguments are parsed, so argus-run and the C API
/// refuse the same launches as the Python launchers.
void checkEnvelope(const Json &e, const LaunchSpec &s) {
  const std::string p = "$.envelope";
  if (!e.is_object())
    bad(p, std::string("expected an object, got ") + kindName(e));
  checkKeys(e, p, {"grid", "scalars"});
  if (const Json *g = findMember(e, "grid")) {
    auto r = getRange(*g, p + ".grid");
    static const char *axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
      if (!s.gridSms[i] && (int64_t(s.launch.grid[i]) < r.first ||
                            int64_t(s.launch.grid[i]) >= r.second))
        outsideEnvelope("$.grid[" + std::to_string(i) + "]",
                        std::string("grid.") + axis[i], s.launch.grid[i], r);
  }
  if (const Json *sc = findMember(e, "scalars")) {
    if (!sc->is_object())
      bad(p + ".scalars", "expected an object of argument names to ranges");
    for (auto it = sc->begin(); it != sc->end(); ++it) {
      auto r = getRange(it.value(), p + ".scalars." + it.key());
      bool found = false;
      for (size_t i = 0; i < s.args.size(); ++i) {
        const ArgSpec &a = s.args[i];
        if (a.name != it.key() || a.isBuffer || a.isTensorMap)
          continue;
        found = true;
        if (a.scalarInt < r.first || a.scalarInt >= r.second)
          outsideEnvelope("$.args[" + std::to_string(i) + "].value",
                          "argument '" + a.name + "'", a.scalarInt, r);
      }
      if (!found)
        bad(p + ".scalars." + it.key(),
            "no integer scalar argument is named \"" + it.key() + "\"");
    }
  }
}

} // namespace

LaunchSpec parseLaunchSpec(const Json &j, const std::string &baseDir,
                           const std::string &specPath) {
  const std::string root = "$";
  if (!j.is_object())
    bad(root, std::string("expected an object, got ") + kindName(j));
  checkKeys(j, root,
            {"name", "module", "format", "kernel", "grid", "block", "cluster",
             "shared_mem", "args", "check", "probes", "warmup", "repetitions",
             "device", "backend", "envelope"});
  LaunchSpec s;
  s.specPath = specPath;
  if (const Json *n = findMember(j, "name"))
    s.name = getString(*n, "$.name");
  std::string mod = getString(require(j, root, "module"), "$.module");
  if (mod.empty())
    bad("$.module", "empty module path");
  s.modulePath = (mod[0] == '/' || baseDir.empty()) ? mod : baseDir + "/" + mod;
  s.format = moduleFormatFromPath(mod);
  if (const Json *f = findMember(j, "format")) {
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
  getGrid(require(j, root, "grid"), "$.grid", s.launch.grid, s.gridSms);
  getDims(require(j, root, "block"), "$.block", s.launch.block);
  checkLaunchShape(s.launch.grid, s.gridSms, s.launch.block);
  if (const Json *cl = findMember(j, "cluster")) {
    const std::string p = "$.cluster";
    if (!cl->is_array() || cl->size() == 0 || cl->size() > 3)
      bad(p, "expected an array of 1 to 3 positive integers [x, y, z]");
    uint64_t blocks = 1;
    for (size_t i = 0; i < cl->size(); ++i) {
      s.launch.cluster[i] = static_cast<unsigned>(
          getInt((*cl)[i], p + "[" + std::to_string(i) + "]", 1, 8));
      blocks *= s.launch.cluster[i];
    }
    if (blocks > kMaxPortableClusterBlocks)
      bad(p, "a cluster of " + std::to_string(blocks) +
                 " blocks exceeds the portable maximum of 8 (non-portable "
                 "cluster sizes up to 16 are not supported by argus-run)");
    static const char *axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
      if (!s.gridSms[i] && s.launch.grid[i] % s.launch.cluster[i] != 0)
        bad(p + "[" + std::to_string(i) + "]",
            std::string("grid.") + axis[i] + " = " +
                std::to_string(s.launch.grid[i]) +
                " is not a multiple of cluster." + axis[i] + " = " +
                std::to_string(s.launch.cluster[i]));
  }
  if (const Json *sm = findMember(j, "shared_mem"))
    s.launch.sharedMem =
        static_cast<unsigned>(getInt(*sm, "$.shared_mem", 0, 0x7FFFFFFF));
  if (const Json *w = findMember(j, "warmup"))
    s.warmup = static_cast<int>(getInt(*w, "$.warmup", 0, 100000));
  if (const Json *r = findMember(j, "repetitions"))
    s.repetitions = static_cast<int>(getInt(*r, "$.repetitions", 1, 1000000));
  if (const Json *d = findMember(j, "device"))
    s.device = static_cast<int>(getInt(*d, "$.device", 0, 1024));
  if (const Json *b = findMember(j, "backend")) {
    s.backend = getString(*b, "$.backend");
    if (s.backend != "auto" && s.backend != "cuda" && s.backend != "hip")
      bad("$.backend", "expected \"auto\", \"cuda\" or \"hip\"");
  }

  const Json &args = require(j, root, "args");
  if (!args.is_array())
    bad("$.args", std::string("expected an array, got ") + kindName(args));
  for (size_t i = 0; i < args.size(); ++i)
    s.args.push_back(
        parseArg(args[i], "$.args[" + std::to_string(i) + "]", baseDir));
  // Tensor maps name their buffer by name or index, before or after them.
  for (size_t i = 0; i < s.args.size(); ++i) {
    if (!s.args[i].isTensorMap)
      continue;
    const std::string p = "$.args[" + std::to_string(i) + "]";
    TensorMapSpec &t = s.args[i].tensorMap;
    auto what = [&](const ArgSpec &a) {
      return a.isTensorMap ? "a tensor map" : "a scalar";
    };
    if (!t.bufferName.empty()) {
      int found = -1;
      for (size_t k = 0; k < s.args.size(); ++k) {
        if (s.args[k].name != t.bufferName)
          continue;
        if (found >= 0)
          bad(p + ".buffer", "more than one argument is named \"" +
                                 t.bufferName + "\" (use its index)");
        found = static_cast<int>(k);
      }
      if (found < 0)
        bad(p + ".buffer", "no argument is named \"" + t.bufferName + "\"");
      t.buffer = found;
    } else if (t.buffer >= static_cast<int>(s.args.size())) {
      bad(p + ".buffer", "argument index " + std::to_string(t.buffer) +
                             " out of range (" + std::to_string(s.args.size()) +
                             " arguments)");
    }
    const ArgSpec &b = s.args[t.buffer];
    if (!b.isBuffer)
      bad(p + ".buffer", "argument " + std::to_string(t.buffer) + " is " +
                             what(b) + ", not a buffer");
    tensorMapDesc(s.args[i], b, 0, p); // validates the box and the strides
  }

  if (const Json *e = findMember(j, "envelope"))
    checkEnvelope(*e, s);

  if (const Json *c = findMember(j, "check")) {
    const std::string p = "$.check";
    if (!c->is_object())
      bad(p, std::string("expected an object, got ") + kindName(*c));
    checkKeys(*c, p,
              {"kind", "A", "B", "C", "M", "N", "K", "layout", "b_layout",
               "atol", "rtol", "reference"});
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
            "argument " + std::to_string(idx) + " is " +
                (s.args[idx].isTensorMap ? "a tensor map" : "a scalar") +
                ", not a buffer");
      return idx;
    };
    ck.a = bufIndex("A");
    ck.b = bufIndex("B");
    ck.c = bufIndex("C");
    ck.M = getInt(require(*c, p, "M"), p + ".M", 1, int64_t(1) << 31);
    ck.N = getInt(require(*c, p, "N"), p + ".N", 1, int64_t(1) << 31);
    ck.K = getInt(require(*c, p, "K"), p + ".K", 1, int64_t(1) << 31);
    if (const Json *r = findMember(*c, "reference")) {
      ck.reference = getString(*r, p + ".reference");
      if (ck.reference != "auto" && ck.reference != "device" &&
          ck.reference != "host")
        bad(p + ".reference",
            "expected \"auto\", \"device\" or \"host\", got \"" + ck.reference +
                "\"");
    }
    if (const Json *l = findMember(*c, "layout")) {
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
    // "b_layout" says how B is stored on its own: "col-major" is B as N x K
    // row-major (a "TN" GEMM in BLAS terms), the same as layout "nt".
    if (const Json *bl = findMember(*c, "b_layout")) {
      std::string v = getString(*bl, p + ".b_layout");
      if (v != "row-major" && v != "col-major")
        bad(p + ".b_layout",
            "expected \"row-major\" (K x N) or \"col-major\" (stored N x "
            "K), got \"" +
                v + "\"");
      bool bT = v == "col-major";
      if (findMember(*c, "layout") && bT != ck.bTransposed)
        bad(p + ".b_layout",
            "\"" + v + "\" contradicts \"layout\": \"" + ck.layout + "\"");
      if (!findMember(*c, "layout") && bT)
        ck.layout = "nt";
      ck.bTransposed = bT;
    }
    defaultGemmTolerance(s.args[ck.c].dtype, ck.atol, ck.rtol);
    if (const Json *v = findMember(*c, "atol"))
      ck.atol = getNumber(*v, p + ".atol");
    if (const Json *v = findMember(*c, "rtol"))
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
  if (const Json *pr = findMember(j, "probes")) {
    const std::string p = "$.probes";
    if (!pr->is_object())
      bad(p, std::string("expected an object, got ") + kindName(*pr));
    checkKeys(*pr, p,
              {"capacity_per_warp", "warps_per_block", "warp_size", "clock",
               "clock_hz", "regions", "timeline_warps"});
    ProbeSpec &ps = s.probes;
    ps.enabled = true;
    ps.capacity =
        static_cast<uint32_t>(getInt(require(*pr, p, "capacity_per_warp"),
                                     p + ".capacity_per_warp", 1, 1 << 24));
    if (const Json *w = findMember(*pr, "warp_size"))
      ps.warpSize =
          static_cast<uint32_t>(getInt(*w, p + ".warp_size", 1, 1024));
    ps.warpsPerBlock = (threads + ps.warpSize - 1) / ps.warpSize;
    if (const Json *w = findMember(*pr, "warps_per_block"))
      ps.warpsPerBlock =
          static_cast<uint32_t>(getInt(*w, p + ".warps_per_block", 1, 1024));
    if (const Json *ck = findMember(*pr, "clock")) {
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
    if (const Json *hz = findMember(*pr, "clock_hz"))
      ps.clockHz = getNumber(*hz, p + ".clock_hz");
    if (const Json *tw = findMember(*pr, "timeline_warps"))
      ps.timelineWarps =
          static_cast<size_t>(getInt(*tw, p + ".timeline_warps", 0, INT32_MAX));
    if (const Json *rg = findMember(*pr, "regions")) {
      if (!rg->is_object())
        bad(p + ".regions", "expected an object {\"id\": \"name\"}");
      for (const auto &kv : rg->items()) {
        const std::string &key = kv.key();
        const std::string rp = memberPath(p + ".regions", key);
        char *end = nullptr;
        unsigned long id = std::strtoul(key.c_str(), &end, 10);
        if (key.empty() || *end != '\0' || id > 0xFFFFFFFFul)
          bad(rp, "region keys must be decimal ids");
        ps.regions[static_cast<uint32_t>(id)] = getString(kv.value(), rp);
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

LaunchConfig resolveLaunch(const LaunchSpec &spec, const DeviceLimits &lim) {
  LaunchConfig cfg = spec.launch;
  static const char *axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (!spec.gridSms[i])
      continue;
    if (lim.multiprocessors <= 0)
      throw RuntimeError(ErrorKind::Launch,
                         std::string("grid.") + axis[i] +
                             " is \"sms\" but the device did not report its "
                             "multiprocessor count");
    // A persistent grid needs at most one block per SM; rounding down keeps
    // it a whole number of clusters on any GPU.
    unsigned n = static_cast<unsigned>(lim.multiprocessors);
    n -= n % cfg.cluster[i];
    if (n == 0)
      throw RuntimeError(ErrorKind::Launch,
                         std::string("grid.") + axis[i] + " = \"sms\" (" +
                             std::to_string(lim.multiprocessors) +
                             ") is smaller than cluster." + axis[i] + " = " +
                             std::to_string(cfg.cluster[i]));
    cfg.grid[i] = n;
  }
  return cfg;
}

namespace {
/// CUtensorMapDataType for a buffer dtype (cuda.h values). 8-bit integers
/// are copied as UINT8 (TMA moves bytes; the type matters only for the OOB
/// fill), as CUTLASS does.
bool tmaDataType(DType t, uint32_t &out) {
  switch (t) {
  case DType::U8:
  case DType::I8:
    out = 0; // UINT8
    return true;
  case DType::U32:
    out = 2; // UINT32
    return true;
  case DType::I32:
    out = 3; // INT32
    return true;
  case DType::U64:
    out = 4; // UINT64
    return true;
  case DType::I64:
    out = 5; // INT64
    return true;
  case DType::F16:
    out = 6; // FLOAT16
    return true;
  case DType::F32:
    out = 7; // FLOAT32
    return true;
  case DType::F64:
    out = 8; // FLOAT64
    return true;
  case DType::BF16:
    out = 9; // BFLOAT16
    return true;
  }
  return false;
}

std::string shapeString(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
} // namespace

TensorMapDesc tensorMapDesc(const ArgSpec &tm, const ArgSpec &buf,
                            DevicePtr addr, const std::string &p) {
  const TensorMapSpec &t = tm.tensorMap;
  const std::string label =
      "tensor map " + (tm.name.empty() ? p : "'" + tm.name + "'") +
      " over buffer " +
      (buf.name.empty() ? std::to_string(t.buffer) : "'" + buf.name + "'") +
      " (" + dtypeName(buf.dtype) + " " + shapeString(buf.shape) + ")";
  TensorMapDesc d;
  const size_t r = buf.shape.size();
  if (r > 5)
    bad(p + ".buffer",
        label + ": TMA tensors have rank 1 to 5, not " + std::to_string(r));
  if (t.box.size() != r)
    bad(p + ".box", label + ": the box has " + std::to_string(t.box.size()) +
                        " dimensions; the buffer has " + std::to_string(r));
  if (!tmaDataType(buf.dtype, d.dataType))
    bad(p + ".buffer", label + ": TMA cannot copy " + dtypeName(buf.dtype));
  if (t.oobNan && !isFloat(buf.dtype))
    bad(p + ".oob_fill", label + ": \"nan\" needs a floating-point buffer");
  const uint64_t esize = dtypeSize(buf.dtype);
  d.rank = static_cast<uint32_t>(r);
  d.globalAddress = addr;
  // cuda.h orders dimensions innermost first; the spec outermost first.
  uint64_t stride = esize;
  for (size_t i = 0; i < r; ++i) {
    uint64_t dim = static_cast<uint64_t>(buf.shape[r - 1 - i]);
    if (dim > (uint64_t(1) << 32))
      bad(p + ".buffer", label + ": dimension " + std::to_string(r - 1 - i) +
                             " exceeds TMA's 2^32 elements");
    d.globalDim[i] = dim;
    d.boxDim[i] = static_cast<uint32_t>(t.box[r - 1 - i]);
    d.elementStrides[i] = 1;
    if (i > 0) {
      if (stride % 16 != 0 || stride >= (uint64_t(1) << 40))
        bad(p + ".buffer",
            label + ": the global stride of dimension " +
                std::to_string(r - 1 - i) + " is " + std::to_string(stride) +
                " bytes; TMA requires global strides that are multiples of "
                "16 bytes (and below 2^40)");
      d.globalStrides[i - 1] = stride;
    }
    stride *= dim;
  }
  const uint64_t innerBytes = uint64_t(d.boxDim[0]) * esize;
  const std::string inner = p + ".box[" + std::to_string(r - 1) + "]";
  if (innerBytes % 16 != 0)
    bad(inner, label + ": the innermost box dimension is " +
                   std::to_string(innerBytes) +
                   " bytes; TMA requires a multiple of 16 bytes");
  if (t.swizzle != 0 && innerBytes > t.swizzle)
    bad(inner, label + ": the innermost box dimension is " +
                   std::to_string(innerBytes) + " bytes, more than the " +
                   std::to_string(t.swizzle) + "-byte swizzle span");
  d.interleave = 0; // CU_TENSOR_MAP_INTERLEAVE_NONE
  d.swizzle = t.swizzle == 0    ? 0
              : t.swizzle == 32 ? 1
              : t.swizzle == 64
                  ? 2
                  : 3; // CU_TENSOR_MAP_SWIZZLE_{NONE,32B,64B,128B}
  d.l2Promotion = t.l2Promotion == 0    ? 0
                  : t.l2Promotion == 64 ? 1
                  : t.l2Promotion == 128
                      ? 2
                      : 3; // CU_TENSOR_MAP_L2_PROMOTION_{NONE,L2_64B,..256B}
  d.oobFill = t.oobNan ? 1 : 0; // CU_TENSOR_MAP_FLOAT_OOB_FILL_*
  if (addr % 16 != 0)
    throw specPathError(ErrorKind::Launch,
                        label + ": device address is not 16-byte aligned, as "
                                "TMA requires",
                        p);
  return d;
}

LaunchSpec loadLaunchSpec(const std::string &file) {
  std::string text = readFile(file, ErrorKind::Spec);
  Json j;
  try {
    j = parseJson(text);
  } catch (const JsonParseError &e) {
    throw specPathError(ErrorKind::Spec, file + ": " + e.what(), "$");
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
