//===- ArgusAttrs.cpp - argus attributes ----------------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LayoutAttrStorage.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/Instructions.h"
#include "argus/Dialect/Targets.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::argus;

#include "argus/Dialect/ArgusEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "argus/Dialect/ArgusAttrs.cpp.inc"

void ArgusDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "argus/Dialect/ArgusAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  std::string text;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&text) || parser.parseGreater())
    return {};
  return parseLayoutText(parser, loc, text);
}

Attribute LayoutAttr::parseLayoutText(AsmParser &parser, SMLoc loc,
                                      StringRef text) {
  llvm::Expected<::argus::layout::SwizzledLayout> layout =
      ::argus::layout::parseLayout(text);
  if (!layout) {
    parser.emitError(loc) << "invalid layout \"" << text
                          << "\": " << llvm::toString(layout.takeError())
                          << "; hint: write CuTe notation such as "
                             "\"(4,(2,8)):(2,(1,8))\" or \"Sw<3,4,3> o "
                             "(8,64):(64,1)\"";
    return {};
  }
  return get(parser.getContext(), *layout);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getText() << "\">";
}

LayoutAttr LayoutAttr::get(MLIRContext *ctx,
                           const ::argus::layout::SwizzledLayout &layout) {
  return Base::get(ctx, layout.str());
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef text) {
  llvm::Expected<::argus::layout::SwizzledLayout> layout =
      ::argus::layout::parseLayout(text);
  if (!layout)
    return emitError() << "invalid layout \"" << text
                       << "\": " << llvm::toString(layout.takeError());
  return success();
}

StringRef LayoutAttr::getText() const { return getImpl()->text; }

const ::argus::layout::SwizzledLayout &LayoutAttr::getLayout() const {
  // The attribute verifier guarantees the text parses.
  if (!getImpl()->layout)
    llvm::report_fatal_error("argus: unverified #argus.layout");
  return *getImpl()->layout;
}

//===----------------------------------------------------------------------===//
// FragmentAttr
//===----------------------------------------------------------------------===//

LogicalResult FragmentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef instr, MmaOperand operand,
                                   ArrayRef<int64_t> warps) {
  if (failed(lookupInstruction(instr, emitError)))
    return failure();
  if (warps.size() != 2 || warps[0] <= 0 || warps[1] <= 0)
    return emitError() << "fragment warp grid must be two positive integers "
                          "[WM, WN], got ["
                       << warps << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// KernelAttr
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> mlir::argus::getKernelTargets() {
  static const StringRef targets[] = {"gfx942", "sm_90", "sm_90a"};
  return targets;
}

bool mlir::argus::isKernelTarget(StringRef chip) {
  return llvm::is_contained(getKernelTargets(), chip);
}

std::string mlir::argus::formatKernelTargets() {
  std::string s;
  ArrayRef<StringRef> t = getKernelTargets();
  for (size_t i = 0; i < t.size(); ++i) {
    if (i)
      s += i + 1 == t.size() ? " or " : ", ";
    s += "\"" + t[i].str() + "\"";
  }
  return s;
}

LogicalResult KernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> block, StringRef target,
                                 ArrayRef<int64_t> cluster) {
  if (block.empty() || block.size() > 3)
    return emitError() << "kernel block shape must have 1 to 3 dimensions, got "
                       << block.size();
  int64_t threads = 1;
  for (int64_t d : block) {
    if (d <= 0)
      return emitError() << "kernel block dimensions must be positive, got ["
                         << block << "]";
    threads *= d;
    if (threads > 1024)
      return emitError() << "kernel block [" << block
                         << "] has more than 1024 threads";
  }
  if (!isKernelTarget(target))
    return emitError() << "unknown kernel target \"" << target
                       << "\"; hint: use " << formatKernelTargets();
  int64_t warp = target.starts_with("gfx") ? 64 : 32;
  if (threads % warp != 0)
    return emitError() << "kernel block of " << threads
                       << " threads is not a whole number of " << warp
                       << "-thread warps on " << target;
  if (cluster.empty())
    return success();
  if (!target.starts_with("sm_9"))
    return emitError() << "thread-block clusters need NVIDIA sm_90, the kernel "
                          "targets "
                       << target << "; hint: drop `cluster`";
  if (cluster.size() > 3)
    return emitError() << "a cluster shape has 1 to 3 dimensions, got "
                       << cluster.size();
  int64_t blocks = 1;
  for (int64_t d : cluster) {
    if (d <= 0)
      return emitError() << "cluster dimensions must be positive, got ["
                         << cluster << "]";
    blocks *= d;
  }
  if (blocks > 8)
    return emitError() << "a cluster of " << blocks
                       << " blocks is larger than the portable limit of 8; "
                          "hint: use at most 8 blocks per cluster";
  return success();
}

int64_t KernelAttr::getClusterSize() const {
  int64_t n = 1;
  for (int64_t d : getCluster())
    n *= d;
  return n;
}

int64_t KernelAttr::getClusterDim(unsigned d) const {
  return d < getCluster().size() ? getCluster()[d] : 1;
}

/// Whether `e` is a grid extent expression (argus/Analysis/GridRule.h); else
/// says why through `emitError`.
static LogicalResult
verifyExtent(Attribute e, function_ref<InFlightDiagnostic()> emitError) {
  if (auto c = dyn_cast<IntegerAttr>(e)) {
    // 0 is what an assumption `grid_dim == 0` says; the host reports it.
    if (!c.getValue().isNegative())
      return success();
    return emitError() << "grid extent constant must not be negative, got "
                       << c;
  }
  auto d = dyn_cast<DictionaryAttr>(e);
  if (!d || d.size() != 1)
    return emitError() << "grid extent must be an integer or a one-entry "
                          "dictionary, got "
                       << e;
  StringRef op = d.begin()->getName().getValue();
  Attribute v = d.begin()->getValue();
  auto ints = [](ArrayAttr a) {
    return llvm::all_of(a, [](Attribute x) {
      auto i = dyn_cast<IntegerAttr>(x);
      return i && !i.getValue().isNegative();
    });
  };
  if (op == "arg") {
    auto i = dyn_cast<IntegerAttr>(v);
    if (i && !i.getValue().isNegative())
      return success();
    return emitError() << "grid extent 'arg' must name an argument number";
  }
  auto a = dyn_cast<ArrayAttr>(v);
  if (op == "size") {
    if (a && a.size() == 2 && ints(a))
      return success();
    return emitError()
           << "grid extent 'size' must be [argument, dimension], got " << v;
  }
  if (!llvm::is_contained(
          ArrayRef<StringRef>{"add", "sub", "mul", "div", "ceildiv", "max"},
          op))
    return emitError() << "unknown grid extent operation '" << op
                       << "'; hint: use size, arg, add, sub, mul, div, "
                          "ceildiv or max";
  if (!a || a.size() != 2)
    return emitError() << "grid extent '" << op << "' takes two operands, got "
                       << v;
  for (Attribute x : a)
    if (failed(verifyExtent(x, emitError)))
      return failure();
  return success();
}

LogicalResult
KernelLaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         StringRef, DenseI64ArrayAttr, int64_t, ArrayAttr,
                         ArrayAttr, ProbePlanAttr, ArrayAttr grid,
                         DenseI64ArrayAttr cluster, ArrayAttr indices) {
  for (Attribute a : indices ? indices.getValue() : ArrayRef<Attribute>()) {
    auto d = dyn_cast<DictionaryAttr>(a);
    if (!d || !d.getAs<IntegerAttr>("arg") || !d.getAs<BoolAttr>("distinct") ||
        !d.getAs<StringAttr>("message"))
      return emitError() << "an index precondition is a dictionary with "
                            "'arg', 'distinct' and 'message', got "
                         << a;
    if (Attribute below = d.get("below"))
      if (failed(verifyExtent(below, emitError)))
        return failure();
  }
  if (cluster &&
      (cluster.size() != 3 ||
       llvm::any_of(cluster.asArrayRef(), [](int64_t d) { return d <= 0; })))
    return emitError() << "a launch's cluster shape has three positive "
                          "dimensions x, y, z";
  if (!grid)
    return success();
  if (grid.size() != 3)
    return emitError() << "grid rule must have one entry per dimension x, "
                          "y, z, got "
                       << grid.size();
  for (Attribute g : grid) {
    auto d = dyn_cast<DictionaryAttr>(g);
    Attribute extent = d ? d.get("extent") : Attribute();
    if (!extent)
      return emitError() << "grid rule entry must be a dictionary with an "
                            "'extent', got "
                         << g;
    if (auto s = dyn_cast<StringAttr>(extent)) {
      if (s.getValue() != "free")
        return emitError() << "grid extent string must be \"free\", got " << s;
    } else if (failed(verifyExtent(extent, emitError))) {
      return failure();
    }
  }
  return success();
}

int64_t KernelAttr::getNumThreads() const {
  int64_t n = 1;
  for (int64_t d : getBlock())
    n *= d;
  return n;
}

int64_t KernelAttr::getWarpSize() const {
  return getTarget().starts_with("gfx") ? 64 : 32;
}
