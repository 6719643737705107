//===- Layouts.cpp - the layout algebra for Python ------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// `_argus.Layout`: CuTe layouts parsed and evaluated by argus::layout, and
// what a tile's layout means (TileLayouts.h): a register tile's (thread,
// slot) layout and a memory tile's element offsets. The DSL's layout
// builders (python/argus/dsl/layouts.py) compute with these, so Python holds
// no second reading of CuTe notation, swizzles or fragments.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/TileLayouts.h"
#include "argus/Layout/Parse.h"

#include "mlir/AsmParser/AsmParser.h"

#include <pybind11/stl.h>

namespace py = pybind11;
namespace L = ::argus::layout;

namespace {

/// A parsed CuTe layout, optionally swizzled.
struct PyLayout {
  L::SwizzledLayout layout;
};

PyLayout parseText(const std::string &text) {
  llvm::Expected<L::SwizzledLayout> parsed = L::parseLayout(text);
  if (!parsed)
    throw py::value_error(llvm::toString(parsed.takeError()));
  return {*parsed};
}

/// The top-level modes of `l` (a plain "size:stride" is one mode).
std::vector<L::Layout> topModes(const L::Layout &l) {
  if (l.shape().isInt())
    return {l};
  return l.modes();
}

/// (size, stride) of each leaf of each top-level mode, colexicographic.
std::vector<std::vector<std::pair<int64_t, int64_t>>>
leavesByMode(const PyLayout &p) {
  std::vector<std::vector<std::pair<int64_t, int64_t>>> out;
  for (const L::Layout &mode : topModes(p.layout.layout)) {
    std::vector<std::pair<int64_t, int64_t>> leaves;
    for (auto [size, stride] : mode.flatModes())
      leaves.push_back({size, stride});
    out.push_back(std::move(leaves));
  }
  return out;
}

int64_t swizzled(const PyLayout &p, int64_t offset) {
  return p.layout.swizzle ? (*p.layout.swizzle)(offset) : offset;
}

/// The value at a 1-D index.
int64_t atIndex(const PyLayout &p, int64_t index) {
  if (index < 0 || index >= p.layout.size())
    throw py::index_error("index " + std::to_string(index) +
                          " is outside the layout's domain [0, " +
                          std::to_string(p.layout.size()) + ")");
  return p.layout(index);
}

/// The value at one 1-D coordinate per top-level mode.
int64_t atCoord(const PyLayout &p, const std::vector<int64_t> &coord) {
  std::vector<L::Layout> modes = topModes(p.layout.layout);
  if (coord.size() != modes.size())
    throw py::value_error("a coordinate of " + std::to_string(coord.size()) +
                          " values for a rank-" + std::to_string(modes.size()) +
                          " layout");
  int64_t offset = 0;
  for (size_t i = 0; i < modes.size(); ++i) {
    if (coord[i] < 0 || coord[i] >= modes[i].size())
      throw py::index_error("coordinate " + std::to_string(coord[i]) +
                            " of mode " + std::to_string(i) +
                            " is outside [0, " +
                            std::to_string(modes[i].size()) + ")");
    offset += modes[i](coord[i]);
  }
  return swizzled(p, offset);
}

/// The element offset of every element of a memory tile of `shape` with
/// layout `p`, by colexicographic index (memoryTileOffset).
std::vector<int64_t> memoryOffsets(const PyLayout &p,
                                   const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s <= 0)
      throw py::value_error("tile dimensions must be positive");
    n *= s;
  }
  if (n != p.layout.size())
    throw py::value_error(
        "layout " + p.layout.str() + " has " + std::to_string(p.layout.size()) +
        " points but the tile has " + std::to_string(n) + " elements");
  std::vector<int64_t> out;
  out.reserve(n);
  std::vector<int64_t> coord(shape.size(), 0);
  for (int64_t lin = 0; lin < n; ++lin) {
    int64_t rest = lin;
    for (size_t d = 0; d < shape.size(); ++d) {
      coord[d] = rest % shape[d];
      rest /= shape[d];
    }
    out.push_back(mlir::argus::memoryTileOffset(p.layout, shape, coord));
  }
  return out;
}

/// The (thread, slot) -> linear coordinate layout of the register tile type
/// written `typeText` (getRegisterLayout): a fragment expanded over its warp
/// grid and repetitions, a CuTe layout as it is. ValueError with the type
/// verifier's message when the type is not a register tile it accepts.
PyLayout registerLayout(std::shared_ptr<argus::python::ArgusCtx> ctx,
                        const std::string &typeText) {
  mlir::MLIRContext *mctx = ctx->get();
  std::vector<argus::python::PyDiagnostic> diags;
  mlir::FailureOr<L::Layout> tv = argus::python::collected(mctx, diags, [&] {
    auto tile = mlir::dyn_cast_or_null<mlir::argus::TileType>(
        mlir::parseType(typeText, mctx));
    if (!tile)
      return mlir::FailureOr<L::Layout>(mlir::failure());
    return mlir::argus::getRegisterLayout(
        tile, [&] { return mlir::emitError(mlir::UnknownLoc::get(mctx)); });
  });
  if (failed(tv))
    throw py::value_error("no register layout of '" + typeText + "'" +
                          argus::python::firstReason(diags));
  return {L::SwizzledLayout(*tv)};
}

} // namespace

namespace argus::python {

void bindLayouts(py::module_ &m) {
  py::class_<PyLayout>(m, "Layout",
                       "A CuTe layout (optionally swizzled) as the layout "
                       "algebra reads it (argus/Layout)")
      .def(py::init(&parseText), py::arg("text"),
           "Parse CuTe notation; ValueError on bad input.")
      .def_property_readonly(
          "text", [](const PyLayout &p) { return p.layout.str(); },
          "canonical CuTe notation")
      .def_property_readonly("size",
                             [](const PyLayout &p) { return p.layout.size(); })
      .def_property_readonly(
          "cosize", [](const PyLayout &p) { return p.layout.cosize(); })
      .def_property_readonly(
          "rank",
          [](const PyLayout &p) { return topModes(p.layout.layout).size(); })
      .def_property_readonly(
          "swizzle",
          [](const PyLayout &p) -> py::object {
            if (!p.layout.swizzle)
              return py::none();
            const L::Swizzle &s = *p.layout.swizzle;
            return py::make_tuple(s.bits(), s.base(), s.shift());
          },
          "(B, M, S) of Sw<B,M,S>, or None")
      .def("modes", &leavesByMode,
           "the (size, stride) leaves of each top-level mode")
      .def("__call__", &atIndex, py::arg("index"),
           "the value at a 1-D index (swizzle applied)")
      .def("at", &atCoord, py::arg("coord"),
           "the value at one 1-D coordinate per top-level mode (swizzle "
           "applied)")
      .def(
          "values",
          [](const PyLayout &p) {
            std::vector<int64_t> out;
            out.reserve(p.layout.size());
            for (int64_t i = 0; i < p.layout.size(); ++i)
              out.push_back(p.layout(i));
            return out;
          },
          "the value at every 1-D index of the domain, in order (swizzle "
          "applied)")
      .def("memory_offsets", &memoryOffsets, py::arg("shape"),
           "the offset of each element of a memory tile of this shape, by "
           "colexicographic index, as the dialect places it")
      .def("__repr__", [](const PyLayout &p) {
        return "Layout(\"" + p.layout.str() + "\")";
      });
  m.def("register_layout", &registerLayout, py::arg("context"),
        py::arg("tile_type"),
        "The (thread, slot) -> linear coordinate Layout of a register tile "
        "type (its text): fragments expanded as the dialect does.");
}

} // namespace argus::python
