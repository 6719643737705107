//===- ArgusOps.cpp - argus operations ------------------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/ErrorKinds.h"
#include "argus/Dialect/Instructions.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TagPredicate.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::argus;

/// A layout operand written as a CuTe string, or as an attribute (alias).
/// The attribute form is parsed with a type so that a following ':' is not
/// taken as the attribute's type.
static ParseResult parseLayoutString(OpAsmParser &parser, LayoutAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  std::string text;
  if (succeeded(parser.parseOptionalString(&text))) {
    attr = dyn_cast_or_null<LayoutAttr>(
        LayoutAttr::parseLayoutText(parser, loc, text));
    return success(bool(attr));
  }
  Attribute any;
  if (parser.parseAttribute(any, parser.getBuilder().getNoneType()))
    return failure();
  attr = dyn_cast<LayoutAttr>(any);
  if (!attr)
    return parser.emitError(loc) << "expected a layout (a CuTe string or an "
                                    "#argus.layout), got "
                                 << any;
  return success();
}

static void printLayoutString(OpAsmPrinter &printer, Operation *,
                              LayoutAttr attr) {
  printer << "\"" << attr.getText() << "\"";
}

/// One tile type written for several operands and results that share it
/// (the elementwise ops): parsed once, assigned to each; printed without
/// its dialect prefix, as ODS prints a type the format names.
template <typename... Rest>
static ParseResult parseSharedType(OpAsmParser &parser, Type &first,
                                   Rest &...rest) {
  TileType tile;
  if (parser.parseCustomTypeWithFallback(tile))
    return failure();
  first = tile;
  ((rest = tile), ...);
  return success();
}

template <typename... Rest>
static void printSharedType(OpAsmPrinter &printer, Operation *, Type first,
                            Rest...) {
  if (auto tile = dyn_cast<TileType>(first))
    printer.printStrippedAttrOrType(tile);
  else
    printer << first;
}

#define GET_OP_CLASSES
#include "argus/Dialect/ArgusOps.cpp.inc"

/// Two tiles that exchange elements must agree on shape and element type.
static LogicalResult verifySameElements(Operation *op, TileType from,
                                        TileType to, StringRef fromName,
                                        StringRef toName) {
  if (from.getShape() != to.getShape())
    return emitOpErrorOfKind(op, ErrorKind::Shape)
           << "shape mismatch: " << fromName << " is "
           << formatShape(from.getShape()) << " but " << toName << " is "
           << formatShape(to.getShape());
  if (from.getElementType() != to.getElementType())
    return emitOpErrorOfKind(op, ErrorKind::ElementType)
           << "element type mismatch: " << fromName << " holds "
           << from.getElementType() << " but " << toName << " holds "
           << to.getElementType() << "; hint: use argus.convert first";
  return success();
}

/// The kernel attribute of the function enclosing `op`, if any.
KernelAttr mlir::argus::getEnclosingKernel(Operation *op) {
  auto fn = op->getParentOfType<FunctionOpInterface>();
  if (!fn)
    return {};
  return fn->getAttrOfType<KernelAttr>(ArgusDialect::getKernelAttrName());
}

/// The warp role enclosing `op`, if any.
static RoleOp getEnclosingRole(Operation *op) {
  return op->getParentOfType<RoleOp>();
}

std::optional<int64_t> mlir::argus::getExecutingThreads(Operation *op) {
  KernelAttr kernel = getEnclosingKernel(op);
  if (!kernel)
    return std::nullopt;
  if (RoleOp role = getEnclosingRole(op))
    return role.getNumWarps() * kernel.getWarpSize();
  return kernel.getNumThreads();
}

//===----------------------------------------------------------------------===//
// Register tiles and the kernel's block
//===----------------------------------------------------------------------===//

/// The number of threads a register tile's (thread, slot) layout spans, or
/// nullopt when the type is not a register tile with a known layout (its own
/// verifier reports that).
static std::optional<int64_t> registerTileThreads(Type type) {
  auto tile = dyn_cast<TileType>(type);
  if (!tile || tile.getMemorySpace() != MemorySpace::Register)
    return std::nullopt;
  Attribute layout = tile.getLayout();
  if (auto frag = dyn_cast_or_null<FragmentAttr>(layout)) {
    std::optional<::argus::layout::MmaInstr> instr =
        ::argus::layout::lookupMmaInstr(frag.getInstr());
    if (!instr)
      return std::nullopt;
    int64_t threads = instr->threads;
    for (int64_t w : frag.getWarps())
      threads *= w;
    return threads;
  }
  if (auto l = dyn_cast_or_null<LayoutAttr>(layout)) {
    ::argus::layout::SwizzledLayout tv = l.getLayout();
    if (tv.layout.rank() != 2)
      return std::nullopt;
    return tv.layout.mode(0).size();
  }
  return std::nullopt;
}

LogicalResult mlir::argus::verifyInFunction(Operation *op) {
  if (op->getParentOfType<FunctionOpInterface>())
    return success();
  return op->emitOpError()
         << "must be inside a function (a kernel body); it is nested in '"
         << (op->getParentOp() ? op->getParentOp()->getName().getStringRef()
                               : StringRef("nothing"))
         << "' (hint: move it into the func.func marked argus.kernel)";
}

LogicalResult mlir::argus::verifyRegisterTilesFitBlock(Operation *op) {
  KernelAttr kernel = getEnclosingKernel(op);
  if (!kernel)
    return success();
  RoleOp role = getEnclosingRole(op);
  int64_t available = *getExecutingThreads(op);
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    std::optional<int64_t> threads = registerTileThreads(type);
    if (!threads || *threads <= available)
      return success();
    InFlightDiagnostic diag =
        op->emitOpError()
        << what << " #" << index << " is a register tile whose layout spans "
        << *threads << " threads but the "
        << (role ? "warp role '" + role.getName().str() + "'"
                 : std::string("kernel block"))
        << " has " << available
        << "; hint: the elements of threads beyond it would never be "
           "read or written: use a layout over at most "
        << available << " threads (or fewer warps)";
    if (role)
      diag.attachNote(role.getLoc()) << "the role is declared here";
    else
      diag.attachNote(op->getParentOfType<FunctionOpInterface>()->getLoc())
          << "the kernel's block is declared here";
    return diag;
  };
  for (OpOperand &operand : op->getOpOperands())
    if (failed(check(operand.get().getType(), "operand",
                     operand.getOperandNumber())))
      return failure();
  for (OpResult result : op->getResults())
    if (failed(check(result.getType(), "result", result.getResultNumber())))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// The tiles `values` (named as the op's documentation names them) have one
/// type; the error says what differs first: shape, element type
/// (verifySameElements) or layout.
static LogicalResult
verifyOneTileType(Operation *op,
                  ArrayRef<std::pair<std::string, TileType>> values) {
  if (values.empty())
    return success();
  const auto &[firstName, first] = values.front();
  for (const auto &[name, tile] : values.drop_front()) {
    if (failed(verifySameElements(op, first, tile, firstName, name)))
      return failure();
    if (tile != first)
      return emitOpErrorOfKind(op, ErrorKind::Layout)
             << "layout mismatch: " << firstName << " is " << first << " but "
             << name << " is " << tile << "; hint: use argus.convert_layout";
  }
  return success();
}

LogicalResult mlir::argus::verifySameTileTypes(Operation *op) {
  // Elementwise ops: lhs and rhs, or one input, then the result.
  SmallVector<std::pair<std::string, TileType>> values;
  unsigned n = op->getNumOperands();
  for (OpOperand &operand : op->getOpOperands())
    if (auto tile = dyn_cast<TileType>(operand.get().getType()))
      values.push_back(
          {n == 1 ? std::string("the input")
           : n == 2
               ? std::string(operand.getOperandNumber() == 0 ? "lhs" : "rhs")
               : "operand #" + std::to_string(operand.getOperandNumber()),
           tile});
  for (OpResult result : op->getResults())
    if (auto tile = dyn_cast<TileType>(result.getType()))
      values.push_back({"the result", tile});
  return verifyOneTileType(op, values);
}

LogicalResult mlir::argus::verifyFloatTiles(Operation *op) {
  for (Value v : op->getOperands())
    if (auto tile = dyn_cast<TileType>(v.getType());
        tile && !isa<FloatType>(tile.getElementType()))
      return emitOpErrorOfKind(op, ErrorKind::ElementType)
             << "needs a float tile, got " << tile.getElementType()
             << " elements; hint: argus.convert it first";
  return success();
}

LogicalResult mlir::argus::verifyNoMaskTiles(Operation *op) {
  for (Value v : op->getOperands())
    if (auto tile = dyn_cast<TileType>(v.getType());
        tile && tile.getElementType().isInteger(1))
      return emitOpErrorOfKind(op, ErrorKind::ElementType)
             << "is not defined on masks (i1 tiles); hint: argus.select "
                "between numbers first";
  return success();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::verify() {
  auto tensor = cast<MemRefType>(getTensor().getType());
  TileType tile = getResult().getType();
  if (tile.getMemorySpace() != MemorySpace::Global)
    return emitOpError() << "views are global tiles, got a "
                         << stringifyMemorySpace(tile.getMemorySpace())
                         << " tile";
  if (tensor.getRank() != tile.getRank())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "tensor of rank " << tensor.getRank()
           << " cannot be viewed as a rank-" << tile.getRank() << " tile";
  if (static_cast<int64_t>(getOffsets().size()) != tile.getRank())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "has " << getOffsets().size() << " offsets for a rank-"
           << tile.getRank() << " tile (one per dimension)";
  if (tensor.getElementType() != tile.getElementType())
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "tensor holds " << tensor.getElementType()
           << " but the tile holds " << tile.getElementType();
  if (!getBounds().empty() && !getClipped())
    return emitOpError() << "bounds clip a view, but the view is not "
                            "'clipped'; hint: write 'clipped to [...]'";
  if (!getBounds().empty() &&
      static_cast<int64_t>(getBounds().size()) != tile.getRank())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "has " << getBounds().size() << " bounds for a rank-"
           << tile.getRank() << " tile (one per dimension)";
  for (int64_t i = 0; i < tile.getRank() && !getClipped(); ++i)
    if (!tensor.isDynamicDim(i) && tensor.getDimSize(i) < tile.getShape()[i])
      return emitOpErrorOfKind(*this, ErrorKind::Shape)
             << "tile dimension " << i << " (" << tile.getShape()[i]
             << ") is larger than the tensor's (" << tensor.getDimSize(i)
             << "); hint: a boundary tile is a 'clipped' view";
  return success();
}

LogicalResult GatherViewOp::verify() {
  auto tensor = cast<MemRefType>(getTensor().getType());
  TileType tile = getResult().getType();
  TileType indices = getIndices().getType();
  if (tile.getMemorySpace() != MemorySpace::Global)
    return emitOpError() << "gather views are global tiles";
  if (tensor.getRank() != 2 || tile.getRank() != 2)
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "gather views take a 2-D tensor to a 2-D tile";
  if (indices.getRank() != 1)
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "row indices must be a 1-D integer tile, got " << indices;
  if (!indices.getElementType().isSignlessInteger(32) &&
      !indices.getElementType().isSignlessInteger(64))
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "row indices must be a 1-D integer tile (i32 or i64), got "
           << indices.getElementType() << " elements";
  if (indices.getShape()[0] != tile.getShape()[0])
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "gathers " << tile.getShape()[0] << " rows but "
           << "has " << indices.getShape()[0] << " row indices";
  if (tensor.getElementType() != tile.getElementType())
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "tensor holds " << tensor.getElementType()
           << " but the tile holds " << tile.getElementType();
  return success();
}

LogicalResult Im2colViewOp::verify() {
  auto tensor = cast<MemRefType>(getTensor().getType());
  TileType tile = getResult().getType();
  if (tile.getMemorySpace() != MemorySpace::Global)
    return emitOpError() << "im2col views are global tiles";
  if (tile.getRank() != 2)
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "im2col views are 2-D tiles (rows: output positions, columns: "
              "window taps x channels), got a rank-"
           << tile.getRank() << " tile";
  size_t d = getWindow().size();
  if (d < 1 || d > 3)
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "window has " << d
           << " dimensions; convolutions have 1, 2 or 3 spatial dimensions";
  if (tensor.getRank() != static_cast<int64_t>(d) + 2)
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "a " << d << "-D window convolves a channels-last tensor of rank "
           << d + 2 << " (N, "
           << (d == 1   ? "W"
               : d == 2 ? "H, W"
                        : "D, H, W")
           << ", C), got rank " << tensor.getRank();
  struct Param {
    const char *name;
    ArrayRef<int64_t> values;
    int64_t least;
  };
  for (Param p :
       {Param{"stride", getStride(), 1}, Param{"pad", getPad(), 0},
        Param{"dilation", getDilation(), 1}, Param{"window", getWindow(), 1}}) {
    if (p.values.size() != d)
      return emitOpErrorOfKind(*this, ErrorKind::Shape)
             << "has " << p.values.size() << " " << p.name << " values for a "
             << d << "-D window (one per dimension)";
    for (int64_t v : p.values)
      if (v < p.least || v > 4096)
        return emitOpError() << p.name << " values must be in [" << p.least
                             << ", 4096], got " << v;
  }
  if (tensor.getElementType() != tile.getElementType())
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "tensor holds " << tensor.getElementType()
           << " but the tile holds " << tile.getElementType();
  // Read-only: every use (through tags and transposes) reads the tile.
  SmallVector<Value> tiles{getResult()};
  while (!tiles.empty()) {
    Value v = tiles.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<TagOp, TransposeOp>(user)) {
        tiles.push_back(user->getResult(0));
        continue;
      }
      bool reads =
          isa<LoadOp, TagAssertOp>(user) ||
          (isa<CopyOp, CopyAsyncOp>(user) && use.getOperandNumber() == 0);
      if (!reads) {
        InFlightDiagnostic diag =
            emitOpError() << "is read-only, but " << user->getName()
                          << " uses it as operand " << use.getOperandNumber()
                          << "; hint: load an im2col view or copy it (global "
                             "to shared), and write the convolution's "
                             "output through argus.view";
        diag.attachNote(user->getLoc()) << "the use";
        return diag;
      }
    }
  }
  return success();
}

LogicalResult AllocOp::verify() {
  if (getName().empty())
    return emitOpError() << "shared buffers need a non-empty name";
  return success();
}

LogicalResult StageOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        ValueRange operands, DictionaryAttr,
                                        OpaqueProperties, RegionRange,
                                        SmallVectorImpl<Type> &types) {
  if (operands.empty())
    return failure();
  auto buffer = dyn_cast<BufferType>(operands[0].getType());
  if (!buffer)
    return emitOptionalError(loc, "expected an !argus.buffer operand");
  types.push_back(buffer.getTile());
  return success();
}

LogicalResult StageOp::verify() {
  // A constant stage index can be range-checked now.
  if (auto cst = getIndex().getDefiningOp<arith::ConstantIndexOp>()) {
    int64_t stages = getBuffer().getType().getStages();
    if (cst.value() < 0 || cst.value() >= stages)
      return emitOpErrorOfKind(*this, ErrorKind::Shape)
             << "stage " << cst.value() << " is out of range for a buffer of "
             << stages << " stages";
  }
  return success();
}

LogicalResult AssumeOp::verify() {
  // A precondition of the launch: it must hold before anything runs.
  if (!isa_and_nonnull<FunctionOpInterface>((*this)->getParentOp()))
    return emitOpError() << "states a kernel precondition and must be at the "
                            "top level of the kernel body, not inside '"
                         << (*this)->getParentOp()->getName() << "'";
  return success();
}

LogicalResult AssumeIndicesOp::verify() {
  if (!isa_and_nonnull<FunctionOpInterface>((*this)->getParentOp()))
    return emitOpError() << "states a kernel precondition and must be at the "
                            "top level of the kernel body, not inside '"
                         << (*this)->getParentOp()->getName() << "'";
  auto arg = dyn_cast<BlockArgument>(getTensor());
  if (!arg || arg.getOwner()->getParentOp() != (*this)->getParentOp())
    return emitOpError() << "declares the entries of a kernel argument; "
                            "the tensor here is not one (hint: name the "
                            "index tensor the kernel takes)";
  auto ty = cast<MemRefType>(getTensor().getType());
  if (ty.getRank() != 1 || !isa<IntegerType>(ty.getElementType()))
    return emitOpError() << "expects a 1-D tensor of integers (row indices), "
                            "got "
                         << ty;
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifySameElements(*this, getSource().getType(),
                                getResult().getType(), "source", "result")))
    return failure();
  std::optional<TypedAttr> other = getOther();
  if (!other)
    return success();
  Type elem = getSource().getType().getElementType();
  if (other->getType() != elem || !isa<FloatAttr, IntegerAttr>(*other))
    return emitOpError() << "other " << *other
                         << " must be a constant of the tile's element type "
                         << elem;
  // Only a clipped view of a tensor has elements outside it, and an im2col
  // view (its padding).
  Value src = getSource();
  while (auto tag = src.getDefiningOp<TagOp>())
    src = tag.getInput();
  if (src.getDefiningOp<Im2colViewOp>())
    return success();
  ViewOp view = getViewThroughTags(getSource());
  if (!view || !view.getClipped())
    return emitOpError()
           << "other fills the elements of a clipped view outside the "
              "tensor, but the source is not a clipped argus.view (its "
              "elements are all read); hint: view the tensor with `clipped`, "
              "or drop other";
  return success();
}

LogicalResult StoreOp::verify() {
  if (failed(verifySameElements(*this, getValue().getType(),
                                getDest().getType(), "value", "destination")))
    return failure();
  std::optional<AtomicKind> kind = getAtomic();
  if (!kind)
    return success();
  TileType dest = getDest().getType();
  if (dest.getMemorySpace() != MemorySpace::Global)
    return emitOpError()
           << "atomic " << stringifyAtomicKind(*kind)
           << " needs a global destination, not "
           << stringifyMemorySpace(dest.getMemorySpace())
           << " memory; hint: combine the block's values in registers "
              "(argus.reduce) and accumulate the result into an argus.view "
              "of a tensor argument";
  Type e = dest.getElementType();
  bool isInt = e.isInteger(32) || e.isInteger(64);
  bool isFloat = e.isF32() || e.isF64();
  if (*kind == AtomicKind::Add && !isInt && !isFloat)
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "atomic add accumulates i32, i64, f32 or f64, not " << e
           << "; hint: argus.convert the value and use a "
           << "tensor of f32";
  if (*kind != AtomicKind::Add && !isInt)
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "atomic " << stringifyAtomicKind(*kind)
           << " accumulates signed i32 or i64, not " << e
           << "; hint: reduce floats in registers "
              "(argus.reduce) and store the result, or "
              "accumulate them with atomic add";
  return success();
}

/// `threads` maps (thread, slot) to linear logical coordinates of the tile.
static LogicalResult verifyCopy(Operation *op, TileType source, TileType dest,
                                LayoutAttr threads, bool async) {
  if (failed(verifySameElements(op, source, dest, "source", "destination")))
    return failure();
  if (async && (source.getMemorySpace() != MemorySpace::Global ||
                dest.getMemorySpace() != MemorySpace::Shared))
    return op->emitOpError()
           << "asynchronous copies go from global to shared memory, got "
           << stringifyMemorySpace(source.getMemorySpace()) << " to "
           << stringifyMemorySpace(dest.getMemorySpace());
  ::argus::layout::SwizzledLayout l = threads.getLayout();
  if (l.layout.rank() != 2)
    return emitOpErrorOfKind(op, ErrorKind::Layout)
           << "copy thread layout \"" << l.str()
           << "\" must have two modes (thread, slot)";
  // Every element is moved by exactly one (thread, slot).
  if (l.swizzle || l.cosize() != source.getNumElements() ||
      l.size() != source.getNumElements() ||
      !::argus::layout::isBijective(l.layout))
    return emitOpErrorOfKind(op, ErrorKind::Layout)
           << "copy thread layout \"" << l.str()
           << "\" must map (thread, slot) one-to-one onto the "
           << source.getNumElements() << " elements of the "
           << formatShape(source.getShape()) << " tile (it has " << l.size()
           << " points reaching [0, " << l.cosize() << "))";
  if (KernelAttr kernel = getEnclosingKernel(op)) {
    int64_t threadsInLayout = l.layout.mode(0).size();
    if (threadsInLayout > kernel.getNumThreads())
      return op->emitOpError()
             << "copy thread layout uses " << threadsInLayout
             << " threads but the kernel block has " << kernel.getNumThreads();
  }
  return success();
}

LogicalResult CopyOp::verify() {
  return verifyCopy(*this, getSource().getType(), getDest().getType(),
                    getThreads(), /*async=*/false);
}

LogicalResult CopyAsyncOp::verify() {
  return verifyCopy(*this, getSource().getType(), getDest().getType(),
                    getThreads(), /*async=*/true);
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

/// The checks argus.mma and argus.mma_async share: operand memory spaces,
/// element types and fragments for the instruction, shapes of a matrix
/// product, and a warp grid that uses exactly the executing threads.
static LogicalResult verifyMatrixProduct(Operation *op, StringRef instrName,
                                         TypedValue<TileType> aVal,
                                         TypedValue<TileType> bVal,
                                         TypedValue<TileType> accVal) {
  auto emitOpError = [&]() { return op->emitOpError(); };
  auto getInstr = [&]() { return instrName; };
  auto getContext = [&]() { return op->getContext(); };
  FailureOr<::argus::layout::MmaInstr> instr = lookupInstruction(
      instrName, [&] { return emitOpErrorOfKind(op, ErrorKind::Instruction); });
  if (failed(instr))
    return failure();

  struct Operand {
    StringRef name;
    TileType type;
    MmaOperand role;
  } operands[] = {{"a", aVal.getType(), MmaOperand::A},
                  {"b", bVal.getType(), MmaOperand::B},
                  {"acc", accVal.getType(), MmaOperand::C}};
  ArrayRef<int64_t> warps;
  bool isWgmma = StringRef(instr->name).starts_with("wgmma");
  for (const Operand &o : operands) {
    // wgmma reads B (and A in the .ss forms) from shared memory.
    bool fromShared =
        isWgmma && (o.role == MmaOperand::B ||
                    (o.role == MmaOperand::A && instr->aFromShared));
    Type want = getOperandElementType(getContext(), *instr, o.role);
    if (want && want != o.type.getElementType())
      return emitOpErrorOfKind(op, ErrorKind::ElementType)
             << getInstr() << " operand '" << o.name << "' must be " << want
             << ", got " << o.type.getElementType()
             << "; hint: argus.convert it first";
    if (fromShared) {
      if (o.type.getMemorySpace() != MemorySpace::Shared)
        return emitOpError()
               << getInstr() << " reads operand '" << o.name
               << "' from shared memory, but it is a "
               << stringifyMemorySpace(o.type.getMemorySpace()) << " tile";
      continue;
    }
    if (o.type.isMemory())
      return emitOpError() << "operand '" << o.name << "' of " << getInstr()
                           << " must be a register tile; hint: argus.load "
                              "it with a fragment layout";
    auto frag = dyn_cast<FragmentAttr>(o.type.getLayout());
    if (!frag || frag.getInstr() != getInstr() || frag.getOperand() != o.role)
      return emitOpErrorOfKind(op, ErrorKind::Layout)
             << "operand '" << o.name << "' must have layout #argus.frag<\""
             << getInstr() << "\", " << stringifyMmaOperand(o.role)
             << ", warps = [...]>, got "
             << (o.type.getLayout() ? o.type.getLayout() : Attribute())
             << "; hint: load it with that fragment layout";
    if (warps.empty())
      warps = frag.getWarps();
    else if (frag.getWarps() != warps)
      return emitOpErrorOfKind(op, ErrorKind::Layout)
             << "operand '" << o.name << "' is spread over warps ["
             << frag.getWarps() << "] but an earlier operand over [" << warps
             << "]";
  }
  for (const Operand &o : operands)
    if (o.type.getRank() != 2)
      return emitOpErrorOfKind(op, ErrorKind::Shape)
             << "operand '" << o.name << "' is a "
             << formatShape(o.type.getShape())
             << " tile; matrix products take 2-D tiles";
  ArrayRef<int64_t> a = aVal.getType().getShape();
  ArrayRef<int64_t> b = bVal.getType().getShape();
  ArrayRef<int64_t> c = accVal.getType().getShape();
  if (a[1] != b[0] || a[0] != c[0] || b[1] != c[1])
    return emitOpErrorOfKind(op, ErrorKind::Shape)
           << "operand shapes do not form a matrix product: a is "
           << formatShape(a) << ", b is " << formatShape(b) << ", acc is "
           << formatShape(c) << "; hint: expected MxK, KxN and MxN";
  if (KernelAttr kernel = getEnclosingKernel(op)) {
    StringRef family = getInstructionTarget(*instr);
    if (!kernel.getTarget().starts_with(family.take_front(3)))
      return emitOpErrorOfKind(op, ErrorKind::Instruction)
             << getInstr() << " is a " << family
             << " instruction but the kernel targets " << kernel.getTarget();
    // The .ss forms have no register operand but the accumulator.
    int64_t needed =
        warps.empty() ? instr->threads : warps[0] * warps[1] * instr->threads;
    int64_t available = *getExecutingThreads(op);
    if (needed != available)
      return emitOpError() << "warp grid [" << warps << "] of " << getInstr()
                           << " needs " << needed << " threads but the "
                           << (getEnclosingRole(op) ? "warp role"
                                                    : "kernel block")
                           << " has " << available;
  }
  return success();
}

LogicalResult MmaOp::verify() {
  return verifyMatrixProduct(*this, getInstr(), getA(), getB(), getAcc());
}

LogicalResult MmaAsyncOp::verify() {
  if (!getInstr().starts_with("wgmma."))
    return emitOpErrorOfKind(*this, ErrorKind::Instruction)
           << "issues asynchronous warpgroup MMAs; '" << getInstr()
           << "' is not a wgmma instruction; hint: use "
              "argus.mma for synchronous instructions";
  return verifyMatrixProduct(*this, getInstr(), getA(), getB(), getAcc());
}

LogicalResult TransposeOp::verify() {
  TileType in = getInput().getType(), out = getResult().getType();
  if (in.getRank() != 2 ||
      out.getShape() != ArrayRef<int64_t>{in.getShape()[1], in.getShape()[0]})
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "transposes a 2-D tile: " << formatShape(in.getShape())
           << " cannot become " << formatShape(out.getShape());
  if (in.getElementType() != out.getElementType() ||
      in.getMemorySpace() != out.getMemorySpace())
    return emitOpError() << "transpose keeps element type and memory space";
  auto li = dyn_cast_or_null<LayoutAttr>(in.getLayout());
  auto lo = dyn_cast_or_null<LayoutAttr>(out.getLayout());
  if (bool(li) != bool(lo))
    return emitOpError() << "input and result must both have layouts or both "
                            "have none";
  if (li) {
    ::argus::layout::SwizzledLayout l = li.getLayout();
    if (l.layout.rank() != 2)
      return emitOpError() << "input layout must have two modes";
    ::argus::layout::SwizzledLayout swapped = l;
    swapped.layout =
        ::argus::layout::Layout::concat({l.layout.mode(1), l.layout.mode(0)});
    if (swapped.str() != lo.getText())
      return emitOpError() << "result layout must be the input's with its "
                              "modes swapped: expected \""
                           << swapped.str() << "\", got \"" << lo.getText()
                           << "\"";
  }
  return success();
}

LogicalResult ReinterpretOp::verify() {
  TileType in = getInput().getType(), out = getResult().getType();
  if (in.getMemorySpace() != MemorySpace::Shared ||
      out.getMemorySpace() != MemorySpace::Shared)
    return emitOpError() << "reinterprets shared-memory tiles only";
  return verifySameElements(*this, in, out, "input", "result");
}

LogicalResult ConvertOp::verify() {
  TileType in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape() || in.getLayout() != out.getLayout())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "converts element types only: shape and layout "
              "must stay the same; hint: use "
              "argus.convert_layout to change the layout";
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  return verifySameElements(*this, getInput().getType(), getResult().getType(),
                            "input", "result");
}

LogicalResult FillOp::verify() {
  Type elt = getResult().getType().getElementType();
  double v = getValue().convertToDouble();
  if (elt.isInteger() && v != static_cast<double>(static_cast<int64_t>(v)))
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "fill value " << v << " is not an integer but the tile holds "
           << elt;
  return success();
}

LogicalResult SplatOp::verify() {
  Type scalar = getValue().getType();
  Type elt = getResult().getType().getElementType();
  if (scalar == elt || (scalar.isIndex() && elt.isSignlessInteger()))
    return success();
  return emitOpErrorOfKind(*this, ErrorKind::ElementType)
         << "cannot splat a " << scalar << " onto a tile of " << elt
         << "; hint: the scalar must have the tile's "
         << "element type (or be an index for an integer tile)";
}

/// The mask of a cmp or select covers the same elements, held by the same
/// threads, as the values.
static LogicalResult verifyMaskMatches(Operation *op, TileType mask,
                                       TileType value, StringRef maskName,
                                       StringRef valueName) {
  if (mask.getShape() != value.getShape())
    return emitOpErrorOfKind(op, ErrorKind::Shape)
           << "shape mismatch: " << maskName << " is "
           << formatShape(mask.getShape()) << " and " << valueName << " "
           << formatShape(value.getShape());
  if (mask.getLayout() != value.getLayout())
    return emitOpErrorOfKind(op, ErrorKind::Layout)
           << "layout mismatch: " << maskName << " and " << valueName
           << " must have the same register layout; hint: use "
              "argus.convert_layout";
  return success();
}

LogicalResult CmpOp::verify() {
  if (failed(verifyOneTileType(
          *this, {{"lhs", getLhs().getType()}, {"rhs", getRhs().getType()}})))
    return failure();
  if (getLhs().getType().getElementType().isInteger(1) &&
      getPredicate() != CmpPredicate::Eq && getPredicate() != CmpPredicate::Ne)
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "masks (i1 tiles) compare with eq or ne only, not "
           << stringifyCmpPredicate(getPredicate());
  return verifyMaskMatches(*this, getResult().getType(), getLhs().getType(),
                           "the result", "the operands");
}

LogicalResult SelectOp::verify() {
  if (!getMask().getType().getElementType().isInteger(1))
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "the mask must be an i1 tile (argus.cmp makes one), got "
           << getMask().getType().getElementType() << " elements";
  if (failed(verifyOneTileType(*this, {{"lhs", getLhs().getType()},
                                       {"rhs", getRhs().getType()},
                                       {"the result", getResult().getType()}})))
    return failure();
  return verifyMaskMatches(*this, getMask().getType(), getLhs().getType(),
                           "the mask", "the values");
}

LogicalResult IotaOp::verify() {
  TileType t = getResult().getType();
  if (!t.getElementType().isSignlessInteger() ||
      t.getElementType().isInteger(1))
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "gives coordinates, so its tile holds integers "
              "(i32 or i64), not "
           << t.getElementType()
           << "; hint: argus.convert the result to a float";
  int64_t dim = getDim();
  if (dim >= t.getRank())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "dimension " << dim << " is out of range for a rank-"
           << t.getRank() << " tile";
  int64_t extent = t.getShape()[dim];
  unsigned width = t.getElementType().getIntOrFloatBitWidth();
  if (width < 64 && extent - 1 > (int64_t(1) << (width - 1)) - 1)
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "coordinates up to " << extent - 1 << " do not fit in "
           << t.getElementType();
  return success();
}

LogicalResult ReduceOp::verify() {
  TileType in = getInput().getType(), out = getResult().getType();
  int64_t dim = getDim();
  if (dim >= in.getRank())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "reduction dimension " << dim << " is out of range for a rank-"
           << in.getRank() << " tile";
  SmallVector<int64_t> expected(in.getShape());
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "reducing dimension " << dim << " of "
           << formatShape(in.getShape()) << " gives " << formatShape(expected)
           << ", not " << formatShape(out.getShape());
  if (in.getElementType() != out.getElementType())
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "reduction keeps the element type " << in.getElementType();
  return success();
}

LogicalResult ScanOp::verify() {
  TileType in = getInput().getType(), out = getResult().getType();
  int64_t dim = getDim();
  if (dim >= in.getRank())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "scan dimension " << dim << " is out of range for a rank-"
           << in.getRank() << " tile; hint: dimensions count from 0";
  if (in != out)
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "result type " << out << " differs from the input type " << in
           << "; hint: a scan keeps the shape, element type "
              "and layout (argus.convert_layout or "
              "argus.convert the result afterwards)";
  Type e = in.getElementType();
  if (e.isInteger(1))
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "cannot scan a mask (i1 tile); hint: "
              "argus.select between integer tiles first";
  return success();
}

LogicalResult BroadcastOp::verify() {
  TileType in = getInput().getType(), out = getResult().getType();
  int64_t dim = getDim();
  if (dim >= out.getRank() || out.getRank() != in.getRank() + 1)
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "broadcast adds one dimension: " << formatShape(in.getShape())
           << " cannot become " << formatShape(out.getShape())
           << " along dimension " << dim;
  SmallVector<int64_t> dropped(out.getShape());
  dropped.erase(dropped.begin() + dim);
  if (ArrayRef<int64_t>(dropped) != in.getShape())
    return emitOpErrorOfKind(*this, ErrorKind::Shape)
           << "broadcast of " << formatShape(in.getShape())
           << " along dimension " << dim << " cannot give "
           << formatShape(out.getShape());
  if (in.getElementType() != out.getElementType())
    return emitOpErrorOfKind(*this, ErrorKind::ElementType)
           << "broadcast keeps the element type " << in.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Tags
//===----------------------------------------------------------------------===//

static bool isIdentifier(StringRef s) {
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

LogicalResult TagOp::verify() {
  TileType tile = getInput().getType();
  AffineMap map = getMap();
  if (map.getNumDims() != static_cast<unsigned>(tile.getRank()))
    return emitOpError() << "tag map takes " << map.getNumDims()
                         << " coordinates but the tile has rank "
                         << tile.getRank() << "; hint: use d0..d"
                         << tile.getRank() - 1;
  if (map.getNumSymbols() != getSymbols().size())
    return emitOpError() << "tag map uses " << map.getNumSymbols()
                         << " symbols but " << getSymbols().size()
                         << " symbol operands are given";
  if (map.getNumResults() != getFields().size())
    return emitOpError() << "tag map computes " << map.getNumResults()
                         << " values for " << getFields().size() << " fields";
  llvm::StringSet<> seen;
  for (Attribute f : getFields()) {
    StringRef name = cast<StringAttr>(f).getValue();
    if (!isIdentifier(name))
      return emitOpErrorOfKind(*this, ErrorKind::TagField)
             << "tag field name \"" << name << "\" is not an identifier";
    if (name == "result")
      return emitOpErrorOfKind(*this, ErrorKind::TagField)
             << "tag field name \"result\" is reserved";
    if (name == kTensorField)
      return emitOpErrorOfKind(*this, ErrorKind::TagField)
             << "tag field name \"" << kTensorField
             << "\" is reserved: every element of a global "
                "view carries it implicitly (the viewed "
                "tensor's argument number)";
    if (!seen.insert(name).second)
      return emitOpErrorOfKind(*this, ErrorKind::TagField)
             << "tag field \"" << name << "\" is defined twice";
  }
  return success();
}

LogicalResult ReducedOp::verify() {
  auto ty = dyn_cast<TileType>(getAcc().getType());
  if (!ty || ty.isMemory() || ty.getShape().size() != 2)
    return emitOpError() << "the accumulator must be a 2-d register tile, not "
                         << getAcc().getType()
                         << "; hint: name the value the reduction produced";
  StringRef f = getField();
  if (f.empty() ||
      !(std::isalpha(static_cast<unsigned char>(f[0])) || f[0] == '_') ||
      !llvm::all_of(f, [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      }))
    return emitOpErrorOfKind(*this, ErrorKind::TagField)
           << "'" << f
           << "' is not a tag field name; hint: the reduced "
              "field of A, e.g. \"k\" or \"n\"";
  return success();
}

Operation *TagAssertOp::getSite() {
  if (Value subject = getSubject())
    return subject.getDefiningOp();
  return getOperation()->getPrevNode();
}

LogicalResult TagAssertOp::verify() {
  std::string error;
  std::unique_ptr<TagExpr> pred = parseTagPredicate(getPredicate(), error);
  if (!pred)
    return emitOpError() << "invalid predicate \"" << getPredicate()
                         << "\": " << error;
  if (!pred->isBoolean())
    return emitOpError() << "predicate \"" << getPredicate()
                         << "\" is an integer, not a condition; hint: "
                            "compare it, e.g. \"a.k == b.k\"";
  Operation *site = getSite();
  if (!site)
    return emitOpError() << (getSubject()
                                 ? "the subject must be the result of the op "
                                   "at which the assertion is checked, not a "
                                   "block argument"
                                 : "an assertion without a subject is "
                                   "checked at the preceding op, but there "
                                   "is none in this block");
  // A malformed site is reported by its own verifier.
  if (!isWellFormed(site))
    return success();
  auto named = getNamedTagOperands(site);
  SmallVector<const TagExpr *> refs;
  pred->collectRefs(refs);
  for (const TagExpr *ref : refs) {
    Value target;
    if (ref->operand == "result") {
      target = site->getNumResults() == 1 ? site->getResult(0) : Value();
    } else {
      for (auto &[name, value] : named)
        if (name == ref->operand)
          target = value;
    }
    if (!target) {
      InFlightDiagnostic diag = emitOpErrorOfKind(*this, ErrorKind::TagField);
      diag << "predicate names '" << ref->operand << "' (column " << ref->column
           << ") but '" << site->getName() << "' has no operand '"
           << ref->operand << "'; hint: use ";
      llvm::interleaveComma(named, diag,
                            [&](auto &p) { diag << "'" << p.first << "'"; });
      diag << (named.empty() ? "'result'" : " or 'result'");
      return diag;
    }
    // `value`: an integer register tile's own element (the tag verifier
    // knows it when the coordinates determine it, and says unknown else).
    auto targetTile = dyn_cast<TileType>(target.getType());
    bool ownValue = ref->field == "value" && targetTile &&
                    !targetTile.isMemory() &&
                    isa<IntegerType>(targetTile.getElementType());
    if (std::optional<std::set<std::string>> fields = inferTagFields(target);
        fields && !ownValue) {
      if (!fields->count(ref->field)) {
        InFlightDiagnostic diag = emitOpErrorOfKind(*this, ErrorKind::TagField);
        diag << "unknown tag field '" << ref->field << "' of '" << ref->operand
             << "' (column " << ref->column
             << "): no argus.tag reaching it defines it";
        if (fields->empty())
          diag << "; hint: the value carries no tags";
        else {
          diag << "; known fields: ";
          llvm::interleaveComma(*fields, diag);
        }
        return diag;
      }
    }
  }
  return success();
}
