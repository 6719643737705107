//===- ArgusTypes.td - argus types -------------------------*- tablegen -*-===//

#ifndef ARGUS_DIALECT_ARGUSTYPES_TD
#define ARGUS_DIALECT_ARGUSTYPES_TD

include "argus/Dialect/ArgusAttrs.td"
include "mlir/IR/AttrTypeBase.td"

class Argus_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Argus_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Argus_TileType : Argus_Type<"Tile", "tile"> {
  let summary = "a tile of elements in a memory space, with a layout";
  let description = [{
    A statically shaped tile with an element type, a memory space and an
    optional layout. A layout written as a bare string is an
    `#argus.layout`:

    ```mlir
    !argus.tile<128x32xf16, global>
    !argus.tile<128x32xf16, shared, "Sw<3,3,3> o (128,32):(32,1)">
    !argus.tile<128x128xf32, register, #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>>
    ```

    Memory tiles: the layout maps a logical coordinate to an element offset
    (its shape matches the tile's). Register tiles: the layout maps
    `(thread, slot)` to a linear logical coordinate and is required.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "tile shape">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::argus::MemorySpace":$memorySpace,
    OptionalParameter<"::mlir::Attribute">:$layout
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    int64_t getNumElements() const;
    bool isMemory() const {
      return getMemorySpace() != ::mlir::argus::MemorySpace::Register;
    }
    /// The same tile with another shape (layout dropped).
    TileType withShape(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

def Argus_BufferType : Argus_Type<"Buffer", "buffer"> {
  let summary = "a multi-stage shared-memory buffer";
  let description = [{
    `stages` copies of a shared-memory tile laid out one after the other, as
    used by software pipelines: `argus.stage` selects one copy.

    ```mlir
    !argus.buffer<3 x !argus.tile<128x32xf16, shared, "Sw<3,3,3> o (128,32):(32,1)">>
    ```
  }];
  let parameters = (ins "int64_t":$stages, "::mlir::argus::TileType":$tile);
  let assemblyFormat = "`<` $stages `x` $tile `>`";
  let genVerifyDecl = 1;
}

def Argus_TensorMapType : Argus_Type<"TensorMap", "tensor_map"> {
  let summary = "a TMA tensor map (descriptor) over a global tensor";
  let description = [{
    The descriptor a bulk tensor copy (`cp.async.bulk.tensor`, sm_90) reads:
    the box it moves per copy (outermost dimension first, like tile shapes),
    the element type and the shared-memory swizzle in bytes (0, 32, 64 or
    128). The host encodes it (`cuTensorMapEncodeTiled`) from the kernel
    argument it describes and passes it as a kernel parameter.

    ```mlir
    !argus.tensor_map<128x64xbf16, swizzle = 128>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "box shape">:$box,
                        "::mlir::Type":$elementType, "int64_t":$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes one box moves.
    int64_t getBoxBytes() const;
  }];
}

def Argus_MBarrierType : Argus_Type<"MBarrier", "mbarrier"> {
  let summary = "a ring of shared-memory mbarriers, one per pipeline stage";
  let description = [{
    `stages` mbarriers (8 bytes each in shared memory). Each tracks a phase
    bit, pending arrivals and pending transaction bytes; a phase completes
    when both reach zero, and `argus.mbarrier.wait` with that phase's parity
    then returns.

    ```mlir
    !argus.mbarrier<4>
    ```
  }];
  let parameters = (ins "int64_t":$stages);
  let assemblyFormat = "`<` $stages `>`";
  let genVerifyDecl = 1;
}

def Argus_AnyTile : Type<CPred<"::llvm::isa<::mlir::argus::TileType>($_self)">,
                         "argus tile", "::mlir::argus::TileType">;
def Argus_MemTile : Type<And<[Argus_AnyTile.predicate,
    CPred<"::llvm::cast<::mlir::argus::TileType>($_self).isMemory()">]>,
    "global or shared argus tile", "::mlir::argus::TileType">;
def Argus_RegTile : Type<And<[Argus_AnyTile.predicate,
    CPred<"!::llvm::cast<::mlir::argus::TileType>($_self).isMemory()">]>,
    "register argus tile", "::mlir::argus::TileType">;

def Argus_FloatRegTile : Type<And<[Argus_RegTile.predicate,
    CPred<"::llvm::isa<::mlir::FloatType>("
          "::llvm::cast<::mlir::argus::TileType>($_self).getElementType())">]>,
    "register argus tile of floats", "::mlir::argus::TileType">;
def Argus_MaskTile : Type<And<[Argus_RegTile.predicate,
    CPred<"::llvm::cast<::mlir::argus::TileType>($_self).getElementType()"
          ".isInteger(1)">]>,
    "register argus tile of i1 (a mask)", "::mlir::argus::TileType">;

#endif // ARGUS_DIALECT_ARGUSTYPES_TD
