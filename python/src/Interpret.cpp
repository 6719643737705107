//===- Interpret.cpp - _argus bindings of the interpreter -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// `_argus.interpret_signature(text, func)` describes a kernel's arguments and
// `_argus.interpret_run(text, func, args, grid, step_budget)` runs one launch
// on float64 numpy arrays in place (argus.interpret converts element types).
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "argus/Dialect/SourceLimits.h"
#include "argus/Interpret/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;

namespace argus::python {
namespace {

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return os.str();
}

struct Parsed {
  std::shared_ptr<ArgusCtx> ctx = std::make_shared<ArgusCtx>();
  OwningOpRef<ModuleOp> module;
  func::FuncOp fn;
};

std::unique_ptr<Parsed> parseKernel(const std::string &text,
                                    const std::string &func) {
  auto p = std::make_unique<Parsed>();
  // Text on which MLIR's parser would end the process (SourceLimits.h).
  if (std::optional<mlir::argus::SourceLimitError> bad =
          mlir::argus::checkSourceLimits(text))
    throw py::value_error("argus.interpret: the kernel does not parse: " +
                          bad->message);
  std::vector<PyDiagnostic> diags;
  {
    DiagnosticCollector collect(p->ctx->get());
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, "kernel.mlir");
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    ParserConfig config(p->ctx->get(), /*verifyAfterParse=*/true);
    p->module = parseSourceFile<ModuleOp>(sm, config);
    diags = collect.take();
  }
  if (!p->module)
    throw py::value_error("argus.interpret: the kernel does not parse" +
                          firstReason(diags));
  p->module->walk([&](func::FuncOp f) {
    if (!p->fn && (func.empty() || f.getName() == func) && !f.isExternal())
      p->fn = f;
  });
  if (!p->fn)
    throw py::value_error("argus.interpret: no function '" + func +
                          "' in the module");
  return p;
}

py::list signature(const std::string &text, const std::string &func) {
  auto p = parseKernel(text, func);
  py::list out;
  for (Type t : p->fn.getArgumentTypes()) {
    if (auto mt = dyn_cast<MemRefType>(t))
      out.append(
          py::make_tuple("buffer", typeStr(mt.getElementType()), mt.getRank()));
    else if (isa<FloatType>(t))
      out.append(py::make_tuple("float", typeStr(t), 0));
    else
      out.append(py::make_tuple("int", typeStr(t), 0));
  }
  return out;
}

py::dict run(const std::string &text, const std::string &func,
             const py::list &args, std::vector<int64_t> grid,
             int64_t stepBudget, uint64_t scheduleSeed, bool trackWriters) {
  auto p = parseKernel(text, func);
  std::vector<::argus::interp::KernelArg> kargs;
  std::vector<py::array_t<double>> keep;
  for (py::handle h : args) {
    ::argus::interp::KernelArg a;
    if (py::isinstance<py::array>(h)) {
      auto arr = py::reinterpret_borrow<py::array>(h);
      if (!arr.dtype().is(py::dtype::of<double>()) ||
          !(arr.flags() & py::array::c_style) || !arr.writeable())
        throw py::type_error("argus.interpret: arrays must be writable "
                             "C-contiguous float64 (argus.interpret "
                             "converts them)");
      auto d = py::array_t<double>(arr);
      keep.push_back(d);
      a.kind = ::argus::interp::KernelArg::Buffer;
      a.buffer.data = d.mutable_data();
      for (py::ssize_t i = 0; i < d.ndim(); ++i)
        a.buffer.shape.push_back(d.shape(i));
    } else if (py::isinstance<py::float_>(h)) {
      a.kind = ::argus::interp::KernelArg::Float;
      a.f = h.cast<double>();
    } else {
      a.kind = ::argus::interp::KernelArg::Int;
      a.i = h.cast<int64_t>();
    }
    kargs.push_back(std::move(a));
  }
  grid.resize(3, 1);
  ::argus::interp::Options opts;
  opts.stepBudget = stepBudget;
  opts.scheduleSeed = scheduleSeed;
  opts.trackWriters = trackWriters;
  ::argus::interp::Result r;
  {
    py::gil_scoped_release release;
    r = ::argus::interp::runLaunch(p->fn, kargs, {grid[0], grid[1], grid[2]},
                                   opts);
  }
  if (!r.ok)
    throw std::runtime_error(r.error);
  py::dict out;
  out["steps"] = r.steps;
  py::list written;
  for (auto [i, a] : llvm::enumerate(kargs))
    if (a.written)
      written.append(i);
  out["written"] = written;
  if (trackWriters) {
    py::dict writers;
    for (auto [i, a] : llvm::enumerate(kargs))
      if (a.kind == ::argus::interp::KernelArg::Buffer && a.written) {
        py::array_t<int32_t> blk(a.writerBlock.size(), a.writerBlock.data());
        py::array_t<int32_t> opi(a.writerOp.size(), a.writerOp.data());
        py::array_t<int32_t> thr(a.writerThread.size(), a.writerThread.data());
        writers[py::int_(i)] = py::make_tuple(blk, opi, thr);
      }
    out["writers"] = writers;
    out["writer_ops"] = r.writerOps;
  }
  return out;
}

} // namespace

void bindInterpret(py::module_ &m) {
  m.def("interpret_signature", &signature, py::arg("text"),
        py::arg("func") = "",
        "[(kind, element type, rank)] of a kernel's arguments: kind is "
        "'buffer', 'int' or 'float'");
  m.def("interpret_run", &run, py::arg("text"), py::arg("func"),
        py::arg("args"), py::arg("grid"), py::arg("step_budget") = 0,
        py::arg("schedule_seed") = 0, py::arg("track_writers") = false,
        "Run one launch of the kernel on the CPU (float64 arrays, in place); "
        "raises RuntimeError naming the op, location and block on failure");
}

} // namespace argus::python
