//===- ArgusModule.cpp - pybind11 bindings of the argus libraries ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The `_argus` extension: an owned MLIRContext with the argus dialect and the
// upstream dialects argus kernels use (the set argus-opt registers), parsing,
// printing, verification and pass pipelines given as strings. Every entry
// point captures MLIR diagnostics as structured objects and never lets a
// failure escape as a crash: errors come back as results that the pure-Python
// layer (python/argus/ir.py) turns into exceptions.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "argus/Analysis/MeasurementSites.h"
#include "argus/Analysis/Passes.h"
#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/ErrorKinds.h"
#include "argus/Dialect/SourceLimits.h"
#include "argus/Dialect/Targets.h"
#ifdef ARGUS_HAVE_VERIFY
#include "argus/Verify/CheckKinds.h"
#include "argus/Verify/Passes.h"
#include "argus/Verify/TagVerifier.h"
#endif
#ifdef ARGUS_HAVE_PIPELINES
#include "argus/Pipelines/Pipelines.h"
#include "argus/Target/LoweredModule.h"
#endif

#include "argus/Layout/Instructions.h"
#include "argus/Layout/Parse.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;
using ::argus::python::ArgusCtx;
using ::argus::python::DiagnosticCollector;
using ::argus::python::PyDiagnostic;
using ::argus::python::registerAllPassesOnce;

namespace {

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// A JSON value as Python objects (object keys sorted, as JSON prints them).
py::object toPython(const llvm::json::Value &v) {
  switch (v.kind()) {
  case llvm::json::Value::Null:
    return py::none();
  case llvm::json::Value::Boolean:
    return py::bool_(*v.getAsBoolean());
  case llvm::json::Value::Number:
    if (std::optional<int64_t> i = v.getAsInteger())
      return py::int_(*i);
    return py::float_(*v.getAsNumber());
  case llvm::json::Value::String:
    return py::str(v.getAsString()->str());
  case llvm::json::Value::Array: {
    py::list l;
    for (const llvm::json::Value &x : *v.getAsArray())
      l.append(toPython(x));
    return l;
  }
  case llvm::json::Value::Object: {
    const llvm::json::Object &o = *v.getAsObject();
    std::vector<std::string> keys;
    for (auto &kv : o)
      keys.push_back(kv.first.str());
    std::sort(keys.begin(), keys.end());
    py::dict d;
    for (const std::string &k : keys)
      d[py::str(k)] = toPython(*o.get(k));
    return d;
  }
  }
  return py::none();
}

#ifdef ARGUS_HAVE_PIPELINES
//===----------------------------------------------------------------------===//
// The launch ABI of a lowered kernel, as Python values
//===----------------------------------------------------------------------===//

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// One parameter slot (#argus.kernel_param).
struct PyKernelParam {
  std::string
      kind; // buffer | size | index | scalar | tensor_map | probe_buffer
  int64_t arg, dim;
  std::string dtype;
  bool written;
};

/// One TMA descriptor parameter (#argus.tensor_map_param).
struct PyTensorMapParam {
  int64_t param, arg, swizzle;
  std::string name, element, oobFill, pass;
  std::vector<int64_t> box;
};

/// A kernel's launch ABI (#argus.kernel_launch).
struct PyKernelLaunch {
  std::string name, chip, binary;
  std::vector<int64_t> block;
  int64_t dynamicSmem;
  std::vector<PyKernelParam> params;
  std::vector<PyTensorMapParam> tensorMaps;
  py::dict probes;
  py::object grid;              // the grid rule's JSON tree, or None
  std::vector<int64_t> cluster; // empty without a cluster
  py::object indices;           // the index preconditions' JSON list
  py::object limits;            // the model's ranges the launch must keep
};

PyKernelLaunch toPython(const std::string &name,
                        mlir::argus::KernelLaunchAttr l) {
  PyKernelLaunch k;
  k.name = name;
  k.chip = l.getChip().str();
  k.binary = "argus_" + k.chip;
  k.block.assign(l.getBlock().asArrayRef().begin(),
                 l.getBlock().asArrayRef().end());
  k.dynamicSmem = l.getDynamicSmem();
  for (auto p : l.getParams().getAsRange<mlir::argus::KernelParamAttr>())
    k.params.push_back({mlir::argus::stringifyKernelArgKind(p.getKind()).str(),
                        p.getArg(), p.getDim(), typeName(p.getType()),
                        p.getWritten().getValue()});
  for (auto m : l.getTensorMaps().getAsRange<mlir::argus::TensorMapParamAttr>())
    k.tensorMaps.push_back({m.getParam(), m.getArg(), m.getSwizzle(),
                            m.getName().str(), typeName(m.getElement()),
                            m.getOobFill().str(), m.getPass().str(),
                            std::vector<int64_t>(m.getBox().asArrayRef())});
  // The probe plan and the grid rule as argus-dump-binary's JSON has them
  // (one conversion of the attribute, LoweredModule.cpp); the plan is empty
  // without probes.
  llvm::json::Value json = mlir::argus::launchToJSON(l);
  if (l.getProbes())
    k.probes = toPython(*json.getAsObject()->get("probes"));
  k.grid = toPython(*json.getAsObject()->get("grid"));
  k.indices = toPython(*json.getAsObject()->get("indices"));
  k.limits = toPython(*json.getAsObject()->get("limits"));
  if (l.getCluster())
    k.cluster.assign(l.getCluster().asArrayRef().begin(),
                     l.getCluster().asArrayRef().end());
  return k;
}
#endif

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

class ArgusMod {
public:
  ArgusMod(std::shared_ptr<ArgusCtx> ctx, OwningOpRef<ModuleOp> module)
      : ctx(std::move(ctx)), module(std::move(module)) {}

  std::string print(bool debugInfo, bool generic, bool nameLocs,
                    bool localScope) {
    std::string s;
    llvm::raw_string_ostream os(s);
    OpPrintingFlags flags;
    // Values named like their source (the DSL's loc("acc"(...))).
    if (nameLocs)
      flags.printNameLocAsPrefix();
    // Locations inline on their op's line (no #loc aliases).
    if (localScope)
      flags.useLocalScope();
    if (debugInfo)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    if (generic)
      flags.printGenericOpForm();
    // Print even invalid IR (after a failed pass) without asserting.
    flags.assumeVerified();
    module->print(os, flags);
    return s;
  }

  /// Runs the op verifiers; returns the diagnostics (empty when valid).
  std::vector<PyDiagnostic> verify() {
    DiagnosticCollector collect(ctx->get());
    (void)mlir::verify(*module);
    return collect.take();
  }

  /// Runs a textual pass pipeline in place. Returns (success, diagnostics).
  std::pair<bool, std::vector<PyDiagnostic>>
  runPipeline(const std::string &pipeline) {
    DiagnosticCollector collect(ctx->get());
    PassManager pm(ctx->get(), ModuleOp::getOperationName());
    pm.enableVerifier(true);
    std::string err;
    llvm::raw_string_ostream errStream(err);
    if (failed(parsePassPipeline(pipeline, pm, errStream))) {
      PyDiagnostic d;
      d.severity = "error";
      d.message = "invalid pass pipeline '" + pipeline + "': " + err;
      std::vector<PyDiagnostic> diags = collect.take();
      diags.insert(diags.begin(), d);
      return {false, diags};
    }
    bool ok = succeeded(pm.run(*module));
    return {ok, collect.take()};
  }

#ifdef ARGUS_HAVE_PIPELINES
  /// Lowers the module in place for `family` ("nvptx" or "gfx942") and
  /// returns (objects, kernels, diagnostics): the objects of each gpu.binary
  /// as (binary symbol, bytes), the launch ABI of each kernel; None, None on
  /// failure. Nothing is written to files.
  py::tuple lower(const std::string &family, const std::string &chip,
                  bool probes, const std::vector<std::string> &probeRegions,
                  const std::string &format, int64_t minBlocksPerSM) {
    if (family != "nvptx" && family != "gfx942")
      throw py::value_error("lower: family must be 'nvptx' or 'gfx942', got '" +
                            family + "'");
    for (const std::string &r : probeRegions)
      if (r.empty() || r.find('|') != std::string::npos)
        throw py::value_error("lower: probe region '" + r +
                              "' must be a non-empty name or ID without '|'");
    if (minBlocksPerSM < 0)
      throw py::value_error("lower: min_blocks_per_sm must be >= 0, got " +
                            std::to_string(minBlocksPerSM));
    mlir::argus::ArgusTargetPipelineOptions o;
    o.probes = probes;
    o.minBlocksPerSM = minBlocksPerSM;
    std::string regions;
    for (const std::string &r : probeRegions)
      regions += (regions.empty() ? "" : "|") + r;
    o.probeRegions = regions;
    o.format = format;
    o.chip = chip;
    DiagnosticCollector collect(ctx->get());
    PassManager pm(ctx->get(), ModuleOp::getOperationName());
    pm.enableVerifier(true);
    if (family == "nvptx")
      mlir::argus::buildArgusToNVPTXPipeline(pm, o);
    else
      mlir::argus::buildArgusToGFX942Pipeline(pm, o);
    if (failed(pm.run(*module)))
      return py::make_tuple(py::none(), py::none(), collect.take());
    py::list objects;
    for (mlir::argus::LoweredObject &obj : mlir::argus::loweredObjects(*module))
      objects.append(py::make_tuple(obj.binary, py::bytes(obj.bytes)));
    py::dict kernels;
    for (auto &[name, launch] : mlir::argus::launchABI(*module))
      kernels[py::str(name)] = toPython(name, launch);
    return py::make_tuple(objects, kernels, collect.take());
  }
#endif

#ifdef ARGUS_HAVE_VERIFY
  /// Runs the tag verifier on the module (unchanged): returns (report,
  /// diagnostics), the report as the JSON report's Python objects, built
  /// from the verifier's results directly (no file, no text).
  py::tuple verifyTags(unsigned timeoutMs, unsigned maxCounterexamples,
                       bool implicitChecks, unsigned threads) {
    if (maxCounterexamples == 0)
      throw py::value_error("max_counterexamples must be at least 1: a "
                            "violated check always has a counterexample");
    if (threads == 0)
      throw py::value_error("threads must be at least 1");
    ::argus::verify::VerifyOptions opts;
    // 0 means no limit, as for argus-opt's timeout-ms.
    opts.timeoutMs =
        timeoutMs == 0 ? std::numeric_limits<unsigned>::max() : timeoutMs;
    opts.maxCounterexamples = maxCounterexamples;
    opts.implicitChecks = implicitChecks;
    opts.threads = threads;
    DiagnosticCollector collect(ctx->get());
    std::vector<::argus::verify::KernelReport> reports;
    try {
      reports = ::argus::verify::verifyModule(*module, opts);
    } catch (std::exception &e) {
      PyDiagnostic d;
      d.severity = "error";
      d.message = std::string("argus-verify-tags: internal error: ") + e.what();
      std::vector<PyDiagnostic> diags = collect.take();
      diags.push_back(d);
      return py::make_tuple(py::none(), diags);
    }
    ::argus::verify::emitDiagnostics(reports);
    return py::make_tuple(toPython(::argus::verify::toJSON(reports)),
                          collect.take());
  }
#endif

  /// The measured regions and their sites (MeasurementSites::toJSON as
  /// Python objects): returns (dict or None, diagnostics).
  py::tuple measurementSites() {
    DiagnosticCollector collect(ctx->get());
    FailureOr<mlir::argus::MeasurementSites> sites =
        mlir::argus::MeasurementSites::compute(*module);
    if (failed(sites))
      return py::make_tuple(py::none(), collect.take());
    return py::make_tuple(toPython(sites->toJSON()), collect.take());
  }

  std::shared_ptr<ArgusMod> clone() {
    return std::make_shared<ArgusMod>(
        ctx, OwningOpRef<ModuleOp>(cast<ModuleOp>((*module)->clone())));
  }

private:
  std::shared_ptr<ArgusCtx> ctx;
  OwningOpRef<ModuleOp> module;
};

/// Parses `text`; returns (module or None, diagnostics).
py::tuple parse(std::shared_ptr<ArgusCtx> ctx, const std::string &text,
                const std::string &sourceName, bool verifyAfterParse) {
  MLIRContext *mctx = ctx->get();
  std::vector<PyDiagnostic> diags;
  OwningOpRef<ModuleOp> module;
  {
    DiagnosticCollector collect(mctx);
    if (std::optional<mlir::argus::SourceLimitError> bad =
            mlir::argus::checkSourceLimits(text)) {
      // MLIR's parser would end the process on it.
      StringRef before = StringRef(text).take_front(bad->offset);
      unsigned line = before.count('\n') + 1;
      unsigned col = bad->offset - (before.rfind('\n') + 1) + 1;
      emitError(FileLineColLoc::get(mctx, sourceName, line, col))
          << bad->message;
    } else {
      auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, sourceName);
      llvm::SourceMgr sm;
      sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
      ParserConfig config(mctx, verifyAfterParse);
      module = parseSourceFile<ModuleOp>(sm, config);
    }
    diags = collect.take();
  }
  if (!module) {
    if (diags.empty()) {
      PyDiagnostic d;
      d.severity = "error";
      d.message = "failed to parse the module";
      diags.push_back(d);
    }
    return py::make_tuple(py::none(), diags);
  }
  return py::make_tuple(std::make_shared<ArgusMod>(ctx, std::move(module)),
                        diags);
}

bool hasPass(const std::string &name) {
  registerAllPassesOnce();
  return mlir::PassInfo::lookup(name) != nullptr ||
         mlir::PassPipelineInfo::lookup(name) != nullptr;
}

/// Parses CuTe notation: returns (canonical text, size, cosize) or raises
/// ValueError with the parser's message.
py::tuple parseLayoutText(const std::string &text) {
  auto parsed = ::argus::layout::parseLayout(text);
  if (!parsed) {
    std::string msg = llvm::toString(parsed.takeError());
    throw py::value_error(msg);
  }
  return py::make_tuple(parsed->str(), parsed->size(), parsed->cosize());
}

/// The descriptor of a named matrix-core instruction, or None.
py::object mmaInstruction(const std::string &name) {
  auto instr = ::argus::layout::lookupMmaInstr(name);
  if (!instr)
    return py::none();
  py::dict d;
  d["name"] = instr->name;
  d["target"] = instr->target == ::argus::layout::MmaInstr::Target::GFX942
                    ? "gfx942"
                    : "sm_90a";
  d["M"] = instr->M;
  d["N"] = instr->N;
  d["K"] = instr->K;
  d["a_type"] = instr->aType;
  d["b_type"] = instr->bType;
  d["c_type"] = instr->cType;
  d["threads"] = instr->threads;
  d["a_from_shared"] = instr->aFromShared;
  d["b_from_shared"] = instr->bFromShared;
  // The operands' (thread, value) -> flat index layouts (m + M*k, n + N*k,
  // m + M*n): the DSL derives its fragment layouts from these.
  d["a_tv"] = instr->A.tv.str();
  d["b_tv"] = instr->B.tv.str();
  d["c_tv"] = instr->C.tv.str();
  return d;
}

} // namespace

namespace argus::python {
py::object wrapModule(std::shared_ptr<ArgusCtx> ctx,
                      OwningOpRef<ModuleOp> module) {
  return py::cast(
      std::make_shared<ArgusMod>(std::move(ctx), std::move(module)));
}
} // namespace argus::python

PYBIND11_MODULE(_argus, m) {
  m.doc() = "argus: bindings over the argus MLIR dialect and passes";

  py::class_<PyDiagnostic>(m, "Diagnostic")
      .def_readonly("severity", &PyDiagnostic::severity)
      .def_readonly("file", &PyDiagnostic::file)
      .def_readonly("line", &PyDiagnostic::line)
      .def_readonly("col", &PyDiagnostic::col)
      .def_readonly("location", &PyDiagnostic::location)
      .def_readonly("message", &PyDiagnostic::message)
      .def_readonly("hint", &PyDiagnostic::hint,
                    "what to write instead (the message's '; hint: ...'), "
                    "or ''")
      .def_readonly("kind", &PyDiagnostic::kind,
                    "the error's kind, one of error_kinds, or '' "
                    "(argus/Dialect/ErrorKinds.h)")
      .def_readonly("notes", &PyDiagnostic::notes)
      .def("__str__", &PyDiagnostic::str)
      .def("__repr__", [](const PyDiagnostic &d) {
        return "<Diagnostic " + d.severity + " " + d.location + ": " +
               d.message + ">";
      });

  py::class_<ArgusCtx, std::shared_ptr<ArgusCtx>>(m, "Context")
      .def(py::init<>())
      .def("parse", &parse, py::arg("text"),
           py::arg("source_name") = "<string>", py::arg("verify") = true,
           "Parse a module: returns (Module or None, [Diagnostic]).");

  py::class_<ArgusMod, std::shared_ptr<ArgusMod>>(m, "Module")
      .def("print", &ArgusMod::print, py::arg("debug_info") = false,
           py::arg("generic") = false, py::arg("name_locs") = false,
           py::arg("local_scope") = false)
      .def("__str__",
           [](ArgusMod &mod) { return mod.print(false, false, false, false); })
      .def("verify", &ArgusMod::verify,
           "Run the op verifiers: returns [Diagnostic] (empty when valid).")
      .def("run_pipeline", &ArgusMod::runPipeline, py::arg("pipeline"),
           "Run a textual pass pipeline in place: returns (ok, "
           "[Diagnostic]).",
           py::call_guard<py::gil_scoped_release>())
#ifdef ARGUS_HAVE_VERIFY
      .def("verify_tags", &ArgusMod::verifyTags, py::arg("timeout_ms") = 10000,
           py::arg("max_counterexamples") = 1,
           py::arg("implicit_checks") = true, py::arg("threads") = 1,
           "Run the tag verifier; returns (report dict or None, diagnostics)")
#endif
#ifdef ARGUS_HAVE_PIPELINES
      .def("lower", &ArgusMod::lower, py::arg("family"), py::arg("chip") = "",
           py::arg("probes") = false,
           py::arg("probe_regions") = std::vector<std::string>{},
           py::arg("format") = "isa", py::arg("min_blocks_per_sm") = 0,
           "Lower in place through argus-to-nvptx / argus-to-gfx942: returns "
           "(objects [(binary, bytes)], kernels {name: KernelLaunch}, "
           "diagnostics); None, None on failure")
#endif
      .def("measurement_sites", &ArgusMod::measurementSites,
           "The measured regions, their asynchronous and synchronization "
           "sites and the pipeline depth (--argus-print-sites): returns "
           "(dict or None, [Diagnostic]).")
      .def("clone", &ArgusMod::clone);

#ifdef ARGUS_HAVE_PIPELINES
  py::class_<PyKernelParam>(m, "KernelParam",
                            "one parameter slot of a lowered kernel "
                            "(#argus.kernel_param)")
      .def_readonly("kind", &PyKernelParam::kind)
      .def_readonly("arg", &PyKernelParam::arg)
      .def_readonly("dim", &PyKernelParam::dim)
      .def_readonly("dtype", &PyKernelParam::dtype)
      .def_readonly("written", &PyKernelParam::written)
      .def("__repr__", [](const PyKernelParam &p) {
        return "<KernelParam " + p.kind + " arg=" + std::to_string(p.arg) +
               " dim=" + std::to_string(p.dim) + " " + p.dtype +
               (p.written ? " written>" : ">");
      });
  py::class_<PyTensorMapParam>(m, "TensorMapParam",
                               "a TMA descriptor parameter "
                               "(#argus.tensor_map_param)")
      .def_readonly("param", &PyTensorMapParam::param)
      .def_readonly("name", &PyTensorMapParam::name)
      .def_readonly("arg", &PyTensorMapParam::arg)
      .def_readonly("box", &PyTensorMapParam::box)
      .def_readonly("element", &PyTensorMapParam::element)
      .def_readonly("swizzle", &PyTensorMapParam::swizzle)
      .def_readonly("oob_fill", &PyTensorMapParam::oobFill)
      .def_readonly("pass_", &PyTensorMapParam::pass);
  py::class_<PyKernelLaunch>(m, "KernelLaunch",
                             "the launch ABI of a lowered kernel "
                             "(#argus.kernel_launch)")
      .def_readonly("name", &PyKernelLaunch::name)
      .def_readonly("chip", &PyKernelLaunch::chip)
      .def_readonly("binary", &PyKernelLaunch::binary)
      .def_readonly("block", &PyKernelLaunch::block)
      .def_readonly("dynamic_smem", &PyKernelLaunch::dynamicSmem)
      .def_readonly("cluster", &PyKernelLaunch::cluster,
                    "blocks per thread-block cluster (x, y, z); empty "
                    "without a cluster")
      .def_readonly("params", &PyKernelLaunch::params)
      .def_readonly("tensor_maps", &PyKernelLaunch::tensorMaps)
      .def_readonly("probes", &PyKernelLaunch::probes)
      .def_readonly("grid", &PyKernelLaunch::grid,
                    "the grid rule: per dimension x, y, z a dict with "
                    "'extent' (an expression over the launch's arguments, "
                    "an int, or 'free') and 'assume' (the assumption it "
                    "comes from); argus.compile.launch_grid evaluates it")
      .def_readonly("indices", &PyKernelLaunch::indices,
                    "the data preconditions of index tensors "
                    "(argus.assume_indices): a list of dicts with 'arg', "
                    "'distinct', 'message' and the bound 'below' (an "
                    "extent expression; absent when a host cannot evaluate "
                    "it); argus.grid.check_indices checks them")
      .def_readonly("limits", &PyKernelLaunch::limits,
                    "the verifier model's ranges every launch must keep "
                    "(argus/Verify/ModelLimits.h): a dict 'integer', "
                    "'size', 'grid' -> [lo, hi); argus.grid.check_limits "
                    "checks them");
#endif

  ::argus::python::bindIRBuilder(m);
  ::argus::python::bindLayouts(m);
  ::argus::python::bindInterpret(m);

  m.def("has_pass", &hasPass, py::arg("name"),
        "Whether a pass or pass pipeline of this name is registered.");

  m.def("parse_layout", &parseLayoutText, py::arg("text"),
        "Parse CuTe notation: (canonical text, size, cosize); ValueError "
        "on bad input.");
  m.def("kernel_targets", [] {
    std::vector<std::string> t;
    for (llvm::StringRef c : mlir::argus::getKernelTargets())
      t.push_back(c.str());
    return t;
  });
  std::vector<std::string> kinds;
  for (mlir::argus::ErrorKind k : mlir::argus::allErrorKinds())
    kinds.push_back(mlir::argus::stringifyErrorKind(k).str());
  m.attr("error_kinds") = kinds;
  // The verifier's check kinds (argus/Verify/CheckKinds.h): name -> (family,
  // meaning, what the model interprets for it).
  py::dict checkKinds;
  for (const ::argus::verify::CheckKind &k : ::argus::verify::checkKinds())
    checkKinds[py::str(k.name)] = py::make_tuple(k.family, k.meaning, k.models);
  m.attr("check_kinds") = checkKinds;
  m.def("mma_instruction", &mmaInstruction, py::arg("name"));
  m.def("known_mma_instructions", &::argus::layout::knownMmaInstrNames);
  m.def("closest_mma_instruction", [](const std::string &name) {
    return ::argus::layout::closestMmaInstrName(name);
  });

  py::dict features;
  features["verify"] =
#ifdef ARGUS_HAVE_VERIFY
      true;
#else
      false;
#endif
  features["transforms"] =
#ifdef ARGUS_HAVE_PIPELINES
      true;
#else
      false;
#endif
  m.attr("features") = features;
#ifdef ARGUS_RUN_PATH
  m.attr("argus_run_path") = ARGUS_RUN_PATH;
#else
  m.attr("argus_run_path") = py::none();
#endif
}
