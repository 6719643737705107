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
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Prod", 3, "prod">
  ]> {
  let cppNamespace = "::mlir::argus";
}

// The read-modify-write of an atomic argus.store: the destination element
// becomes `dest op value` (add: integers and floats; max, min: integers).
def Argus_AtomicKind : I32EnumAttr<"AtomicKind", "atomic accumulation", [
    I32EnumAttrCase<"Add", 0, "add">,
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
    (threads per block) and the hardware target; on sm_90, optionally the
    thread-block cluster's shape (blocks per cluster, at most 8): the grid
    is then a whole number of clusters, and `argus.tma_load ... multicast`
    and `argus.mbarrier.arrive ... cluster` reach every block of it.

    ```mlir
    func.func @gemm(...) attributes {
        argus.kernel = #argus.kernel<block = [256, 1, 1], target = "gfx942">}
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "threads per block">:$block,
    StringRefParameter<"target chip">:$target,
    OptionalArrayRefParameter<"int64_t", "blocks per thread-block cluster">:$cluster
  );
  let assemblyFormat = [{
    `<` `block` `=` `[` $block `]` `,` `target` `=` $target
    (`,` `cluster` `=` `[` $cluster^ `]`)? `>`
  }];
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<int64_t>":$block,
                     "::llvm::StringRef":$target), [{
      return $_get($_ctxt, block, target, ::llvm::ArrayRef<int64_t>());
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Blocks per thread-block cluster (sm_90+): 1 without `cluster`.
    int64_t getClusterSize() const;
    /// The cluster's extent in dimension `d` (0-2): 1 without `cluster`.
    int64_t getClusterDim(unsigned d) const;
    int64_t getNumThreads() const;
    /// Threads per warp (wavefront) on the target: 64 on gfx9, 32 on sm_*.
    int64_t getWarpSize() const;
  }];
}


//===----------------------------------------------------------------------===//
// The launch ABI of a lowered kernel
//===----------------------------------------------------------------------===//

def Argus_KernelArgKind : I32EnumAttr<"KernelArgKind",
    "what a parameter of a lowered kernel carries", [
    I32EnumAttrCase<"Buffer", 0, "buffer">,
    I32EnumAttrCase<"Size", 1, "size">,
    I32EnumAttrCase<"Index", 2, "index">,
    I32EnumAttrCase<"Scalar", 3, "scalar">,
    I32EnumAttrCase<"TensorMap", 4, "tensor_map">,
    I32EnumAttrCase<"ProbeBuffer", 5, "probe_buffer">
  ]> {
  let cppNamespace = "::mlir::argus";
  let genSpecializedAttr = 0;
}

def Argus_KernelParamAttr : Argus_Attr<"KernelParam", "kernel_param"> {
  let summary = "one parameter of a lowered kernel";
  let description = [{
    What the host passes in one parameter slot of a lowered kernel, in
    order (docs/Lowering.md, "Kernel ABI"): a `buffer` is the device address
    of tensor argument `arg` (element `type`; `written` when the kernel may
    store into it), a `size` the i64 extent of its dimension `dim`, an
    `index` argument `arg` as i64, a `scalar` argument `arg` in its `type`,
    a `tensor_map` the 128-byte TMA descriptor of the kernel's tensor map
    number `dim` over tensor argument `arg`, and `probe_buffer` the probe
    records' buffer (arg = -1).
  }];
  let parameters = (ins
    EnumParameter<Argus_KernelArgKind>:$kind,
    "int64_t":$arg,
    "int64_t":$dim,
    "::mlir::Type":$type,
    "::mlir::BoolAttr":$written
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def Argus_TensorMapParamAttr : Argus_Attr<"TensorMapParam", "tensor_map_param"> {
  let summary = "how the host encodes one TMA descriptor parameter";
  let description = [{
    Parameter `param` of a lowered kernel is the CUtensorMap of
    `argus.tensor_map` `name` over tensor argument `arg`: a box of `box`
    elements of `element` (outermost first), `swizzle` bytes (0, 32, 64,
    128), out-of-bounds elements filled as `oob_fill`, passed as `pass`
    (`value`: by value, a grid constant).
  }];
  let parameters = (ins
    "int64_t":$param,
    StringRefParameter<"tensor map name">:$name,
    "int64_t":$arg,
    "::mlir::DenseI64ArrayAttr":$box,
    "::mlir::Type":$element,
    "int64_t":$swizzle,
    StringRefParameter<"out-of-bounds fill">:$oob_fill,
    StringRefParameter<"how the descriptor is passed">:$pass
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def Argus_ProbePlanAttr : Argus_Attr<"ProbePlan", "probe_plan"> {
  let summary = "the regions of a kernel to measure, and how";
  let description = [{
    Put on a kernel as `argus_probes` by `argus-insert-probes` and read by
    the lowering and the hosts: `capacity` records per warp the host should
    allocate, the timer (`clock`), the probed regions (`regions`: ID ->
    name), the warps and linear block indices that write records (empty:
    all), the loop iterations recorded (`iteration_lo` <= i <
    `iteration_hi`; -1: no upper bound), and the warp size and warps per
    block the probe buffer's slots are counted in.
  }];
  let parameters = (ins
    "int64_t":$capacity,
    StringRefParameter<"timer">:$clock,
    "::mlir::DictionaryAttr":$regions,
    "::mlir::DenseI64ArrayAttr":$warps,
    "::mlir::DenseI64ArrayAttr":$blocks,
    "int64_t":$iteration_lo,
    "int64_t":$iteration_hi,
    "int64_t":$warp_size,
    "int64_t":$warps_per_block
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def Argus_KernelLaunchAttr : Argus_Attr<"KernelLaunch", "kernel_launch"> {
  let summary = "the launch ABI the lowering gives one kernel";
  let description = [{
    Recorded by `argus-to-gpu` for each kernel, on the top module
    (`argus.launch = {name = #argus.kernel_launch<...>}`), where it survives
    serialisation to a binary: the chip, the block, the dynamic shared
    memory a launch must request, every parameter in order
    (`#argus.kernel_param`), the tensor maps to encode
    (`#argus.tensor_map_param`), the probe plan when probes were lowered
    (`argus-insert-probes`; absent otherwise) and the grid rule: how a host
    computes the grid from a launch's arguments, derived from the kernel's
    `argus.assume` conditions on `gpu.grid_dim` (one dictionary per
    dimension, `argus/Analysis/GridRule.h`; docs/Lowering.md "Grid rule")
    and, for a kernel with a thread-block cluster, the cluster's shape
    (x, y, z), which the launch must request (`cuLaunchKernelEx`), and the
    data preconditions of index tensors (`argus.assume_indices`: one
    dictionary each, `arg`, `distinct`, `message` and the bound `below` as
    an extent expression, absent when a host cannot evaluate it), which a
    host checks before a launch.
    Hosts (the Python driver, argus-opt's dump sidecar) read this instead of
    re-deriving the ABI.
  }];
  let parameters = (ins
    StringRefParameter<"target chip">:$chip,
    "::mlir::DenseI64ArrayAttr":$block,
    "int64_t":$dynamic_smem,
    "::mlir::ArrayAttr":$params,
    "::mlir::ArrayAttr":$tensor_maps,
    OptionalParameter<"::mlir::argus::ProbePlanAttr">:$probes,
    OptionalParameter<"::mlir::ArrayAttr">:$grid,
    OptionalParameter<"::mlir::DenseI64ArrayAttr">:$cluster,
    OptionalParameter<"::mlir::ArrayAttr">:$indices
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // ARGUS_DIALECT_ARGUSATTRS_TD
