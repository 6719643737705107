//===- argus-run.cpp - Run a kernel launch spec and report regions --------===//
//
// argus-run SPEC.json [--report OUT.json] [--trace TRACE.json] ...
// argus-run --batch DIR [--out-dir DIR2]
//
// Exit codes: 0 ok, 1 runtime error, 2 bad spec / usage, 3 no GPU driver,
// 4 bad module (PTX JIT log printed), 5 bad launch dimensions, 6 check failed.
//
//===----------------------------------------------------------------------===//
#include "argus/runtime/Device.h"
#include "argus/runtime/Error.h"
#include "argus/runtime/Json.h"
#include "argus/runtime/Runner.h"
#include "argus/runtime/Spec.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace argus::rt;

namespace {

struct Cli {
  std::string spec, batchDir, outDir, report, trace, dumpProbes;
  uint32_t traceBlocks = 0xFFFFFFFFu;
  bool validateOnly = false, quiet = false;
  DeviceOptions dev;
  bool deviceSet = false, backendSet = false;
};

void usage(std::ostream &os) {
  os << "usage: argus-run SPEC.json [--report OUT.json] [--trace TRACE.json]\n"
        "                 [--trace-blocks N] [--dump-probes BUF.bin]\n"
        "       argus-run --batch DIR [--out-dir DIR2]\n"
        "options: --device N  --backend auto|cuda|hip  --validate (parse "
        "only)\n"
        "         --cuda-lib NAME  --hip-lib NAME (driver libraries to "
        "dlopen)\n"
        "         --quiet\n"
        "exit codes: 0 ok, 1 runtime error, 2 bad spec, 3 no GPU driver, "
        "4 bad module, 5 bad launch, 6 check failed\n";
}

bool writeText(const std::string &path, const std::string &text,
               std::string &err) {
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    err = "cannot write '" + path + "'";
    return false;
  }
  f << text;
  f.close(); // a full disk shows only when the buffer is written
  if (!f) {
    err = "error writing '" + path + "'";
    return false;
  }
  return true;
}

/// An integer option value in [lo, hi], or exit 2 naming the option.
int64_t intOption(const char *opt, const std::string &text, int64_t lo,
                  int64_t hi) {
  errno = 0;
  char *end = nullptr;
  long long v = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    std::cerr << "argus-run: " << opt << " expects an integer in [" << lo
              << ", " << hi << "], got '" << text << "'\n";
    std::exit(2);
  }
  return v;
}

/// Whether `path` can be written (its directory exists and is writable,
/// and it is not a directory itself); else a message. Checked before the
/// kernel runs, so that no work is done for output that cannot be saved.
bool checkWritable(const std::string &path, std::string &err) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    err = "'" + path + "' is a directory";
    return false;
  }
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    err = "directory '" + dir + "' of '" + path + "' does not exist";
    return false;
  }
  if (access(dir.c_str(), W_OK) != 0) {
    err = "directory '" + dir + "' of '" + path + "' is not writable";
    return false;
  }
  return true;
}

void printError(const RuntimeError &e) {
  std::cerr << "argus-run: error (" << errorKindName(e.kind)
            << "): " << e.what() << "\n";
  // The message names the field as "$.args[3].value"; tools that edit the
  // spec want the RFC 6901 form. The root ("") adds nothing to the message.
  if (hasSpecPointer(e) && !e.pointer.empty())
    std::cerr << "  at JSON pointer " << e.pointer << "\n";
  if (!e.log.empty())
    std::cerr << "---- JIT log ----\n" << e.log << "\n-----------------\n";
}

std::unique_ptr<Device> cachedDevice;
std::string cachedKey;
std::unique_ptr<RuntimeError> cachedFailure; // batch: don't retry a dead driver

Device &getDevice(const Cli &cli, const LaunchSpec &spec) {
  DeviceOptions o = cli.dev;
  if (!cli.deviceSet)
    o.deviceIndex = spec.device;
  if (!cli.backendSet)
    o.backend = spec.backend;
  std::string key = o.backend + "#" + std::to_string(o.deviceIndex);
  if (cachedFailure && key == cachedKey)
    throw *cachedFailure;
  if (!cachedDevice || key != cachedKey) {
    cachedDevice.reset();
    cachedFailure.reset();
    cachedKey = key;
    try {
      cachedDevice = openDevice(o);
    } catch (const RuntimeError &e) {
      cachedFailure = std::make_unique<RuntimeError>(e);
      throw;
    }
  }
  return *cachedDevice;
}

/// Runs one spec; fills `entry` (batch results) and returns the exit code.
int runOne(const Cli &cli, const std::string &specFile,
           const std::string &reportPath, const std::string &tracePath,
           Json &entry) {
  entry["spec"] = specFile;
  try {
    LaunchSpec spec = loadLaunchSpec(specFile);
    entry["name"] = spec.name;
    if (cli.validateOnly) {
      // The launch would fail to load it (as an "init" file that is not
      // there fails the spec's own parse).
      struct stat st;
      if (::stat(spec.modulePath.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw specPathError(ErrorKind::Spec,
                            "$.module: cannot open module file '" +
                                spec.modulePath +
                                "' (a relative path is relative to the spec's "
                                "directory)",
                            "$.module");
      entry["status"] = "valid";
      entry["exit_code"] = 0;
      if (!cli.quiet)
        std::cout << "argus-run: " << specFile << ": spec is valid\n";
      return 0;
    }
    Device &dev = getDevice(cli, spec);
    RunOptions ro;
    ro.traceMaxBlocks = cli.traceBlocks;
    ro.buildTrace = !tracePath.empty();
    ro.dumpProbesPath = cli.dumpProbes;
    RunResult r = runSpec(dev, spec, ro);
    std::string err;
    if (!reportPath.empty()) {
      if (!writeText(reportPath, dumpJson(r.report, 1) + "\n", err))
        throw RuntimeError(ErrorKind::Runtime, err);
      entry["report"] = reportPath;
    }
    if (!tracePath.empty() && !r.trace.is_null()) {
      if (!writeText(tracePath, dumpJson(r.trace) + "\n", err))
        throw RuntimeError(ErrorKind::Runtime, err);
      entry["trace"] = tracePath;
    }
    if (!cli.quiet)
      std::cout << formatSummary(spec, r);
    int code = r.checked && !r.checkPassed ? 6 : 0;
    entry["status"] = code == 0 ? "ok" : "check_failed";
    entry["exit_code"] = code;
    Json t = Json::object();
    t["median"] = r.medianMs;
    t["min"] = r.minMs;
    t["p90"] = r.p90Ms;
    entry["time_ms"] = std::move(t);
    if (const Json *c = findMember(r.report, "check"))
      if (c->is_object()) {
        Json cj = Json::object();
        for (const char *k : {"passed", "mismatches", "max_abs_err",
                              "max_rel_err", "rel_fro_err"})
          cj[k] = c->at(k);
        entry["check"] = std::move(cj);
      }
    if (const Json *th = findMember(r.report, "throughput"))
      entry["tflops"] = th->at("tflops_median").at("value");
    if (!r.trace.is_null() || r.probeRecords) {
      Json pj = Json::object();
      pj["records"] = r.probeRecords;
      pj["dropped"] = r.probeDropped;
      pj["unmatched"] = r.probeUnmatched;
      entry["probes"] = std::move(pj);
    }
    entry["error"] = Json();
    if (code == 6)
      std::cerr << "argus-run: " << specFile
                << ": result check FAILED (see report)\n";
    return code;
  } catch (const RuntimeError &e) {
    printError(e);
    entry["status"] = "error";
    entry["exit_code"] = static_cast<int>(e.kind);
    entry["error"] = errorJson(e);
    return static_cast<int>(e.kind);
  } catch (const std::exception &e) {
    std::cerr << "argus-run: internal error: " << e.what() << "\n";
    entry["status"] = "error";
    entry["exit_code"] = 1;
    entry["error"] = errorJson(RuntimeError(ErrorKind::Runtime, e.what()));
    return 1;
  }
}

bool endsWith(const std::string &s, const std::string &suf) {
  return s.size() >= suf.size() &&
         s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

int runBatch(const Cli &cli) {
  std::vector<std::string> files;
  DIR *d = opendir(cli.batchDir.c_str());
  if (!d) {
    std::cerr << "argus-run: cannot open directory '" << cli.batchDir << "'\n";
    return 2;
  }
  while (dirent *e = readdir(d)) {
    std::string n = e->d_name;
    if (!endsWith(n, ".json") || n == "results.json" ||
        endsWith(n, ".report.json") || endsWith(n, ".trace.json"))
      continue;
    files.push_back(n);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  std::string outDir = cli.outDir.empty() ? cli.batchDir + "/out" : cli.outDir;
  mkdir(outDir.c_str(), 0755);
  Json results = Json::array();
  int ok = 0, failed = 0;
  bool allNoDriver = !files.empty();
  for (const auto &f : files) {
    std::string stem = f.substr(0, f.size() - 5);
    Json entry = Json::object();
    int code = runOne(
        cli, cli.batchDir + "/" + f,
        cli.validateOnly ? "" : outDir + "/" + stem + ".report.json",
        cli.validateOnly ? "" : outDir + "/" + stem + ".trace.json", entry);
    (code == 0 ? ok : failed)++;
    if (code != 3)
      allNoDriver = false;
    results.push_back(std::move(entry));
  }
  Json doc = Json::object();
  doc["schema"] = "argus.batch_results/1";
  doc["dir"] = cli.batchDir;
  doc["total"] = static_cast<uint64_t>(files.size());
  doc["ok"] = ok;
  doc["failed"] = failed;
  doc["results"] = std::move(results);
  std::string err;
  std::string path = cli.batchDir + "/results.json";
  if (!writeText(path, dumpJson(doc, 1) + "\n", err)) {
    std::cerr << "argus-run: " << err << "\n";
    return 1;
  }
  if (!cli.quiet)
    std::cout << "argus-run: batch " << cli.batchDir << ": " << ok << "/"
              << files.size() << " ok; results in " << path << "\n";
  if (allNoDriver)
    return 3;
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    Cli cli;
    std::vector<std::string> cudaLibs, hipLibs;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto value = [&](const char *opt) -> std::string {
        if (i + 1 >= argc) {
          std::cerr << "argus-run: " << opt << " needs a value\n";
          std::exit(2);
        }
        return argv[++i];
      };
      if (a == "-h" || a == "--help") {
        usage(std::cout);
        return 0;
      } else if (a == "--report" || a == "-o") {
        cli.report = value("--report");
      } else if (a == "--trace") {
        cli.trace = value("--trace");
      } else if (a == "--trace-blocks") {
        cli.traceBlocks = static_cast<uint32_t>(intOption(
            "--trace-blocks", value("--trace-blocks"), 0, 0xFFFFFFFFll));
      } else if (a == "--dump-probes") {
        cli.dumpProbes = value("--dump-probes");
      } else if (a == "--batch") {
        cli.batchDir = value("--batch");
      } else if (a == "--out-dir") {
        cli.outDir = value("--out-dir");
      } else if (a == "--device") {
        cli.dev.deviceIndex = static_cast<int>(
            intOption("--device", value("--device"), 0, 1 << 20));
        cli.deviceSet = true;
      } else if (a == "--backend") {
        cli.dev.backend = value("--backend");
        cli.backendSet = true;
      } else if (a == "--cuda-lib") {
        cudaLibs.push_back(value("--cuda-lib"));
      } else if (a == "--hip-lib") {
        hipLibs.push_back(value("--hip-lib"));
      } else if (a == "--validate") {
        cli.validateOnly = true;
      } else if (a == "--quiet" || a == "-q") {
        cli.quiet = true;
      } else if (!a.empty() && a[0] == '-') {
        std::cerr << "argus-run: unknown option '" << a << "'\n";
        usage(std::cerr);
        return 2;
      } else if (cli.spec.empty()) {
        cli.spec = a;
      } else {
        std::cerr << "argus-run: more than one spec given\n";
        return 2;
      }
    }
    for (auto [opt, path] : {std::pair<const char *, const std::string *>{
                                 "--dump-probes", &cli.dumpProbes},
                             {"--report", &cli.report},
                             {"--trace", &cli.trace}}) {
      std::string err;
      if (!path->empty() && !checkWritable(*path, err)) {
        std::cerr << "argus-run: " << opt << ": " << err << "\n";
        return 2;
      }
    }
    if (!cudaLibs.empty())
      cli.dev.cudaLibraries = cudaLibs;
    if (!hipLibs.empty())
      cli.dev.hipLibraries = hipLibs;
    if (!cli.batchDir.empty()) {
      if (!cli.spec.empty()) {
        std::cerr << "argus-run: give either SPEC.json or --batch DIR\n";
        return 2;
      }
      return runBatch(cli);
    }
    if (cli.spec.empty()) {
      usage(std::cerr);
      return 2;
    }
    Json entry = Json::object();
    return runOne(cli, cli.spec, cli.report, cli.trace, entry);
  } catch (const std::exception &e) {
    std::cerr << "argus-run: internal error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "argus-run: internal error\n";
    return 1;
  }
}
