//===- ArgusTypes.cpp - argus types ---------------------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/Instructions.h"
#include "argus/Dialect/TileLayouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::argus;

#define GET_TYPEDEF_CLASSES
#include "argus/Dialect/ArgusTypes.cpp.inc"

void ArgusDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "argus/Dialect/ArgusTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

int64_t TileType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

TileType TileType::withShape(ArrayRef<int64_t> shape) const {
  return TileType::get(getContext(), shape, getElementType(), getMemorySpace(),
                       Attribute());
}

Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  std::string space;
  SMLoc spaceLoc;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  spaceLoc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&space))
    return {};
  std::optional<MemorySpace> memorySpace = symbolizeMemorySpace(space);
  if (!memorySpace) {
    parser.emitError(spaceLoc)
        << "unknown memory space '" << space
        << "'; hint: use 'global', 'shared' or 'register'";
    return {};
  }
  Attribute layout;
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    std::string text;
    if (succeeded(parser.parseOptionalString(&text))) {
      layout = LayoutAttr::parseLayoutText(parser, loc, text);
      if (!layout)
        return {};
    } else if (parser.parseAttribute(layout)) {
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TileType>(parser.getContext(), shape, elementType,
                                     *memorySpace, layout);
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ", "
          << stringifyMemorySpace(getMemorySpace());
  if (Attribute layout = getLayout()) {
    printer << ", ";
    if (auto l = dyn_cast<LayoutAttr>(layout))
      printer << "\"" << l.getText() << "\"";
    else
      printer.printAttribute(layout);
  }
  printer << ">";
}

std::string mlir::argus::formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// The most 32-bit registers one thread's slots of a register tile may take:
/// 4x the largest register file of a thread on any target (512 on gfx942,
/// 255 on NVIDIA). The lowering unrolls every slot a thread holds; a tile
/// beyond this would spill entirely and take minutes and gigabytes to lower
/// first (issue 54).
static constexpr int64_t kMaxTileRegistersPerThread = 2048;

/// A register layout maps (thread, slot) to a linear logical coordinate: it
/// must have two modes and its image must be exactly [0, numElements), and,
/// `inRegisters`, a thread's slots must fit kMaxTileRegistersPerThread.
static LogicalResult
verifyRegisterLayout(function_ref<InFlightDiagnostic()> emitError,
                     const ::argus::layout::SwizzledLayout &layout,
                     ArrayRef<int64_t> shape, Type elementType,
                     int64_t numElements, bool inRegisters = true) {
  if (layout.layout.rank() != 2)
    return emitError() << "register tile layout \"" << layout.str()
                       << "\" must have two modes (thread, slot), got "
                       << layout.layout.rank();
  // The register budget, before anything walks the slots (the coverage
  // check below, the lowering's unrolling): a replicated slot mode can
  // give a small tile billions of slots per thread.
  // A fragment of an operand the instruction reads from shared memory
  // (wgmma B, A of ".ss") names no registers: every thread "sees" the whole
  // tile.
  int64_t slots = layout.layout.mode(1).size();
  int64_t bytesPerSlot =
      std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
  if (inRegisters &&
      (slots <= 0 || slots > kMaxTileRegistersPerThread * 4 / bytesPerSlot)) {
    std::string elem; // unquoted, as in the tile type
    llvm::raw_string_ostream(elem) << elementType;
    return emitError() << "register tile layout \"" << layout.str()
                       << "\" gives each thread " << slots << " slots of "
                       << elem << " (" << formatShape(shape)
                       << " tile), more than the " << kMaxTileRegistersPerThread
                       << " 32-bit registers per thread a register tile may "
                          "take (a thread has at most 512: gfx942; 255 on "
                          "NVIDIA); hint: spread the tile over more threads, "
                          "split it into smaller tiles or keep it in shared "
                          "memory";
  }
  if (layout.cosize() != numElements)
    return emitError() << "register tile layout \"" << layout.str()
                       << "\" reaches logical coordinates [0, "
                       << layout.cosize() << ") but the " << formatShape(shape)
                       << " tile has " << numElements
                       << " elements; hint: the layout must map (thread, "
                          "slot) onto every element of the tile";
  // Coverage: every coordinate must be held by some (thread, slot). Checked
  // exhaustively for layouts of reasonable size.
  int64_t size = layout.size();
  if (size <= (int64_t(1) << 22)) {
    std::vector<bool> seen(numElements, false);
    for (int64_t c : layout.layout.values()) // register layouts: no swizzle
      if (c >= 0 && c < numElements)
        seen[c] = true;
    for (int64_t c = 0; c < numElements; ++c)
      if (!seen[c])
        return emitError() << "register tile layout \"" << layout.str()
                           << "\" leaves logical coordinate " << c << " of the "
                           << formatShape(shape)
                           << " tile without a (thread, slot)";
  }
  return success();
}

/// A memory layout maps a logical coordinate to an offset: its modes must
/// match the tile's dimensions.
static LogicalResult
verifyMemoryLayout(function_ref<InFlightDiagnostic()> emitError,
                   const ::argus::layout::SwizzledLayout &layout,
                   ArrayRef<int64_t> shape, int64_t numElements) {
  const ::argus::layout::Layout &l = layout.layout;
  bool rankOk = l.rank() == static_cast<int64_t>(shape.size());
  bool sizesOk = rankOk;
  for (int64_t i = 0; sizesOk && i < l.rank(); ++i)
    sizesOk = l.mode(i).size() == shape[i];
  // A rank-1 layout may also cover the whole tile in colexicographic order.
  if (!sizesOk && !(l.rank() == 1 && l.size() == numElements))
    return emitError() << "memory tile layout \"" << layout.str()
                       << "\" does not match the " << formatShape(shape)
                       << " tile; hint: give one mode per tile dimension "
                          "with the dimension's size";
  return success();
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               MemorySpace memorySpace, Attribute layout) {
  if (shape.empty())
    return emitError() << "tile must have at least one dimension";
  int64_t numElements = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      return emitError() << "tile dimensions must be positive, got "
                         << formatShape(shape);
    if (numElements > (int64_t(1) << 40) / d)
      return emitError() << "tile " << formatShape(shape) << " is too large";
    numElements *= d;
  }
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "tile element type must be an integer or float, got "
                       << elementType;

  if (!layout) {
    if (memorySpace == MemorySpace::Register)
      return emitError() << "register tile " << formatShape(shape)
                         << " needs a layout; hint: add a (thread, slot) "
                            "layout such as \"(256,16):(16,1)\" or an "
                            "#argus.frag<...>";
    if (memorySpace == MemorySpace::Shared)
      return emitError() << "shared tile " << formatShape(shape)
                         << " needs a layout; hint: add an offset layout "
                            "such as \"(128,32):(32,1)\"";
    return success();
  }

  if (auto frag = dyn_cast<FragmentAttr>(layout)) {
    if (memorySpace != MemorySpace::Register)
      return emitError() << "#argus.frag layouts are register layouts, but "
                            "the tile is in "
                         << stringifyMemorySpace(memorySpace) << " memory";
    FailureOr<::argus::layout::MmaInstr> instr =
        lookupInstruction(frag.getInstr(), emitError);
    if (failed(instr))
      return failure();
    if (shape.size() != 2)
      return emitError() << "a matrix-core fragment tile must be 2-D, got "
                         << formatShape(shape);
    std::array<int64_t, 2> op = getOperandShape(*instr, frag.getOperand());
    ArrayRef<int64_t> warps = frag.getWarps();
    // A is split over warp rows, B over warp columns, C over both.
    int64_t wr = frag.getOperand() == MmaOperand::B ? 1 : warps[0];
    int64_t wc = frag.getOperand() == MmaOperand::A ? 1 : warps[1];
    if (shape[0] % (op[0] * wr) != 0 || shape[1] % (op[1] * wc) != 0)
      return emitError() << "tile " << formatShape(shape) << " does not fit "
                         << frag.getInstr() << " operand "
                         << stringifyMmaOperand(frag.getOperand()) << " ("
                         << op[0] << "x" << op[1] << ") over warps [" << warps
                         << "]; hint: each dimension must be a multiple of "
                         << op[0] * wr << "x" << op[1] * wc;
    // The fragment must also place into the tile as a plain TV layout.
    FailureOr<::argus::layout::Layout> tv =
        getFragmentLayout(frag, shape, emitError);
    if (failed(tv))
      return failure();
    bool fromShared =
        (frag.getOperand() == MmaOperand::A && instr->aFromShared) ||
        (frag.getOperand() == MmaOperand::B && instr->bFromShared);
    return verifyRegisterLayout(emitError, ::argus::layout::SwizzledLayout(*tv),
                                shape, elementType, numElements, !fromShared);
  }

  auto layoutAttr = dyn_cast<LayoutAttr>(layout);
  if (!layoutAttr)
    return emitError() << "tile layout must be an #argus.layout or "
                          "#argus.frag attribute, got "
                       << layout;
  ::argus::layout::SwizzledLayout l = layoutAttr.getLayout();
  if (memorySpace == MemorySpace::Register) {
    if (l.swizzle)
      return emitError() << "register tile layout \"" << l.str()
                         << "\" cannot be swizzled; hint: swizzles apply to "
                            "shared-memory offsets";
    return verifyRegisterLayout(emitError, l, shape, elementType, numElements);
  }
  return verifyMemoryLayout(emitError, l, shape, numElements);
}

//===----------------------------------------------------------------------===//
// BufferType
//===----------------------------------------------------------------------===//

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t stages, TileType tile) {
  if (stages <= 0 || stages > 16)
    return emitError() << "buffer must have 1 to 16 stages, got " << stages;
  if (tile.getMemorySpace() != MemorySpace::Shared)
    return emitError() << "buffer tiles must be in shared memory, got "
                       << stringifyMemorySpace(tile.getMemorySpace());
  return success();
}

//===----------------------------------------------------------------------===//
// TensorMapType
//===----------------------------------------------------------------------===//

int64_t TensorMapType::getBoxBytes() const {
  int64_t n = getElementType().getIntOrFloatBitWidth() / 8;
  for (int64_t d : getBox())
    n *= d;
  return n;
}

Type TensorMapType::parse(AsmParser &parser) {
  SmallVector<int64_t> box;
  Type elementType;
  int64_t swizzle = 0;
  if (parser.parseLess() ||
      parser.parseDimensionList(box, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseKeyword("swizzle") || parser.parseEqual() ||
      parser.parseInteger(swizzle) || parser.parseGreater())
    return {};
  return parser.getChecked<TensorMapType>(parser.getContext(), box, elementType,
                                          swizzle);
}

void TensorMapType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getBox());
  printer << "x" << getElementType() << ", swizzle = " << getSwizzle() << ">";
}

/// The limits cuTensorMapEncodeTiled enforces, checked here so that a bad
/// box is a located diagnostic instead of a launch-time CUresult.
LogicalResult
TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> box, Type elementType,
                      int64_t swizzle) {
  if (box.empty() || box.size() > 5)
    return emitError() << "a tensor map box has 1 to 5 dimensions, got "
                       << box.size();
  for (int64_t d : box)
    if (d < 1 || d > 256)
      return emitError() << "tensor map box dimensions must be in [1, 256], "
                            "got "
                         << formatShape(box);
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() < 8 ||
      elementType.getIntOrFloatBitWidth() % 8)
    return emitError() << "tensor map element type must be a byte-sized "
                          "integer or float, got "
                       << elementType;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "tensor map swizzle must be 0, 32, 64 or 128 "
                          "(bytes), got "
                       << swizzle;
  int64_t innerBytes = box.back() * (elementType.getIntOrFloatBitWidth() / 8);
  if (innerBytes % 16)
    return emitError() << "the innermost box dimension moves " << innerBytes
                       << " bytes; TMA needs a multiple of 16";
  if (swizzle && innerBytes > swizzle)
    return emitError() << "the innermost box dimension moves " << innerBytes
                       << " bytes, more than the " << swizzle
                       << "-byte swizzle span; hint: use a box of at most "
                       << swizzle / (elementType.getIntOrFloatBitWidth() / 8)
                       << " elements there and several boxes per tile";
  return success();
}

//===----------------------------------------------------------------------===//
// MBarrierType
//===----------------------------------------------------------------------===//

LogicalResult MBarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t stages) {
  if (stages <= 0 || stages > 16)
    return emitError() << "an mbarrier ring has 1 to 16 stages, got " << stages;
  return success();
}
