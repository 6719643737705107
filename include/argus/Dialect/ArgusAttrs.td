//===- ArgusAttrs.td - argus attributes --------------------*- tablegen -*-===//

#ifndef ARGUS_DIALECT_ARGUSATTRS_TD
#define ARGUS_DIALECT_ARGUSATTRS_TD

include "argus/Dialect/ArgusDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Argus_MemorySpace : I32EnumAttr<"MemorySpace", "tile memory space", [
    I32EnumAttrCase<"Global", 0, "global">,
    I32EnumAttrCase<"Shared", 1, "shared">,
    I32EnumAttrCase<"Register", 2, "register">
  ]> {
  let cppNamespace = "::mlir::argus";
  let genSpecializedAttr = 0;
}

def Argus_MmaOperand : I32EnumAttr<"MmaOperand", "matrix-core operand", [
    I32EnumAttrCase<"A", 0, "a">,
    I32EnumAttrCase<"B", 1, "b">,
    I32EnumAttrCase<"C", 2, "c">
  ]> {
  let cppNamespace = "::mlir::argus";
  let genSpecializedAttr = 0;
}

def Argus_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">
  ]> {
  let cppNamespace = "::mlir::argus";
}

def Argus_CmpPredicate : I32EnumAttr<"CmpPredicate", "elementwise comparison", [
    I32EnumAttrCase<"Lt", 0, "lt">,
    I32EnumAttrCase<"Le", 1, "le">,
    I32EnumAttrCase<"Gt", 2, "gt">,
    I32EnumAttrCase<"Ge", 3, "ge">,
    I32EnumAttrCase<"Eq", 4, "eq">,
    I32EnumAttrCase<"Ne", 5, "ne">
  ]> {
  let cppNamespace = "::mlir::argus";
}

class Argus_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Argus_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Argus_LayoutAttr : Argus_Attr<"Layout", "layout"> {
  let summary = "a layout-algebra function in CuTe notation";
  let description = [{
    A hierarchical shape:stride layout, optionally with an XOR swizzle applied
    after it, written in CuTe notation:

    ```mlir
    #argus.layout<"(4,(2,8)):(2,(1,8))">
    #argus.layout<"Sw<3,3,3> o (128,32):(32,1)">
    ```

    The text is parsed by the layout algebra (`argus/Layout`) and stored in
    its canonical printed form, so parsing and printing round-trip.
  }];
  let parameters = (ins StringRefParameter<"canonical CuTe notation">:$text);
  // The storage (lib/Dialect/LayoutAttrStorage.h) is uniqued by the text and
  // keeps the parsed layout, built once when the attribute is created, so
  // the lowering and the verifier never parse the text again.
  let genStorageClass = 0;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout as a value of the layout algebra, parsed when the
    /// attribute was created (the verifier has checked that the text parses).
    const ::argus::layout::SwizzledLayout &getLayout() const;
    /// Build from any layout-algebra value.
    static LayoutAttr get(::mlir::MLIRContext *ctx,
                          const ::argus::layout::SwizzledLayout &layout);
    /// Parse CuTe notation, reporting errors at `loc`.
    static ::mlir::Attribute parseLayoutText(::mlir::AsmParser &parser,
                                             ::llvm::SMLoc loc,
                                             ::llvm::StringRef text);
  }];
}

def Argus_FragmentAttr : Argus_Attr<"Fragment", "frag"> {
  let summary = "register layout of a matrix-core instruction operand";
  let description = [{
    The register layout of operand `a`, `b` or `c` of a named matrix-core
    instruction, replicated over a grid of warps (`warps = [WM, WN]`,
    warp index split column-major) and repeated over the tile:

    ```mlir
    #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
    ```

    A tile with this layout has a shape that is a multiple of the
    instruction's operand shape times the warp grid along each dimension.
  }];
  let parameters = (ins
    StringRefParameter<"instruction name">:$instr,
    "::mlir::argus::MmaOperand":$operand,
    ArrayRefParameter<"int64_t", "warp grid">:$warps
  );
  let assemblyFormat = [{
    `<` $instr `,` $operand `,` `warps` `=` `[` $warps `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Argus_KernelAttr : Argus_Attr<"Kernel", "kernel"> {
  let summary = "marks a function as an argus kernel";
  let description = [{
    Placed on a `func.func` or `gpu.func` as `argus.kernel`: the block shape
    (threads per block) and the hardware target.

    ```mlir
    func.func @gemm(...) attributes {
        argus.kernel = #argus.kernel<block = [256, 1, 1], target = "gfx942">}
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "threads per block">:$block,
    StringRefParameter<"target chip">:$target
  );
  let assemblyFormat = [{
    `<` `block` `=` `[` $block `]` `,` `target` `=` $target `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumThreads() const;
    /// Threads per warp (wavefront) on the target: 64 on gfx9, 32 on sm_*.
    int64_t getWarpSize() const;
  }];
}

#endif // ARGUS_DIALECT_ARGUSATTRS_TD
