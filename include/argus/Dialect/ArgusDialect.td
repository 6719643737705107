//===- ArgusDialect.td - the argus tile dialect ------------*- tablegen -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_ARGUSDIALECT_TD
#define ARGUS_DIALECT_ARGUSDIALECT_TD

include "mlir/IR/OpBase.td"

def Argus_Dialect : Dialect {
  let name = "argus";
  let cppNamespace = "::mlir::argus";
  let summary = "Tile kernels with tags, tag assertions and region markers";
  let description = [{
    The argus dialect describes block-collective tile programs: tiles live in
    global, shared or register memory and carry a layout from the layout
    algebra. Tiles can be tagged with symbolic functions of their logical
    coordinates; `argus.tag_assert` states relations between tags at use
    sites which the tag verifier proves or refutes. `argus.region.begin` /
    `argus.region.end` mark semantic regions with stable IDs for measurement.

    Conventions: logical coordinates of a tile are linearised
    colexicographically (CuTe convention: `d0 + D0 * d1 + ...`). A memory
    tile's layout maps a logical coordinate to an element offset; a register
    tile's layout maps `(thread, slot)` to the linear logical coordinate.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
    /// Name of the function attribute that marks a kernel.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("argus.kernel");
    }
  }];
}

// Every argus op checks that the register tiles it produces or consumes are
// spread over no more threads than the enclosing kernel's block has
// (verifyRegisterTilesFitBlock in ArgusDialect.h).
def Argus_RegisterTilesFitBlock : NativeOpTrait<"RegisterTilesFitBlock"> {
  let cppNamespace = "::mlir::argus";
}

// Every argus op is part of a kernel body: at a module's top level it has no
// kernel, block or launch to mean anything in (verifyInFunction).
def Argus_InFunction : NativeOpTrait<"InFunction"> {
  let cppNamespace = "::mlir::argus";
}

// Every tile operand and result of the op has one type; a mismatch is an
// error of kind shape, element_type or layout (verifySameTileTypes).
def Argus_SameTileTypes : NativeOpTrait<"SameTileTypes"> {
  let cppNamespace = "::mlir::argus";
}

// Every tile operand and result holds floats (verifyFloatTiles).
def Argus_FloatTiles : NativeOpTrait<"FloatTiles"> {
  let cppNamespace = "::mlir::argus";
}

// No tile operand or result is an i1 mask (verifyNoMaskTiles).
def Argus_NoMaskTiles : NativeOpTrait<"NoMaskTiles"> {
  let cppNamespace = "::mlir::argus";
}

class Argus_Op<string mnemonic, list<Trait> traits = []>
    : Op<Argus_Dialect, mnemonic,
         !listconcat(traits, [Argus_InFunction, Argus_RegisterTilesFitBlock])>;

#endif // ARGUS_DIALECT_ARGUSDIALECT_TD
