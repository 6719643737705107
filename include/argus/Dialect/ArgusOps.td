//===- ArgusOps.td - argus operations ----------------------*- tablegen -*-===//

#ifndef ARGUS_DIALECT_ARGUSOPS_TD
#define ARGUS_DIALECT_ARGUSOPS_TD

include "argus/Dialect/ArgusTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Memory: views, buffers, loads, stores, copies, synchronisation
//===----------------------------------------------------------------------===//

def Argus_ViewOp : Argus_Op<"view", [Pure, AttrSizedOperandSegments]> {
  let summary = "a global-memory tile window of a kernel argument";
  let description = [{
    The tile of `tensor` whose top-left element is at `offsets` (element
    coordinates, usually block id times tile size). `name` names the tensor
    in counterexamples.

    A `clipped` view is a boundary tile: the elements of the window that lie
    outside the tensor's sizes do not exist. Stores skip them, loads and
    copies read them as zero (TMA copies: the hardware's out-of-bounds
    fill), so M, N and K need not be multiples of the tile. Every access of
    an unclipped view must stay inside the tensor (the verifier's
    `out-of-bounds` check).

    A clipped view may also clip `to` bounds, one per dimension, in the
    tensor's coordinates: elements at or past a bound do not exist either
    (the window is cut at the smaller of the bound and the tensor's size).
    A tensor of several segments stacked along its rows (the heads of an
    attention's `(B * H * S, D)` tensor, S not a multiple of the tile)
    writes each segment's last tile without touching the next segment.
    Bulk tensor copies clip at their tensor map only, so a view with bounds
    cannot be their global tile.

    ```mlir
    %a = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !argus.tile<128x32xf16, global>
    %c = argus.view "C" %C[%m0, %n0] clipped : memref<?x?xf16> -> !argus.tile<128x256xf16, global>
    %o = argus.view "O" %O[%q0, %c0] clipped to [%head_end, %c128] : memref<?x?xbf16> -> !argus.tile<128x128xbf16, global>
    ```
  }];
  let arguments = (ins StrAttr:$name, AnyMemRef:$tensor,
                       Variadic<Index>:$offsets, UnitAttr:$clipped,
                       Variadic<Index>:$bounds);
  let results = (outs Argus_MemTile:$result);
  let assemblyFormat = [{
    $name $tensor `[` $offsets `]` (`clipped` $clipped^)?
    (`to` ` ` `[` $bounds^ `]`)? attr-dict `:` type($tensor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_GatherViewOp : Argus_Op<"gather_view", [Pure]> {
  let summary = "a global tile whose rows are gathered through an index tile";
  let description = [{
    Row `r` of the result is row `indices[r]` of `tensor`, columns
    `[col, col + N)`. Used by MoE kernels to gather the tokens routed to one
    expert.

    ```mlir
    %x = argus.gather_view "X" %X[%rows, %k0] : memref<?x?xf16>, !argus.tile<64xi32, register, "(64,1):(1,0)"> -> !argus.tile<64x32xf16, global>
    ```
  }];
  let arguments = (ins StrAttr:$name, AnyMemRef:$tensor, Argus_RegTile:$indices,
                       Index:$col);
  let results = (outs Argus_MemTile:$result);
  let assemblyFormat = [{
    $name $tensor `[` $indices `,` $col `]` attr-dict `:` type($tensor) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_Im2colViewOp : Argus_Op<"im2col_view", [Pure]> {
  let summary = "a tile of the im2col matrix of a channels-last tensor";
  let description = [{
    The convolution of a channels-last tensor `X` (N, D1..Dd, C), d = 1, 2
    or 3 spatial dimensions, with a window R1..Rd is the GEMM
    `col(X) x Wt`, where the im2col matrix `col(X)` has one row per output
    position p = (n, o1..od) (row-major, N * O1 * .. * Od rows) and one
    column per window tap and channel k = (r1..rd, c) (row-major,
    R1 * .. * Rd * C columns):

        col(X)[p, k] = X[n, o1 * s1 + r1 * l1 - q1, .., c]

    with strides s, dilations l and paddings q, and Oi = (Di + 2 qi -
    li (Ri - 1) - 1) / si + 1. This op is the tile of `col(X)` whose
    top-left element is at (`row`, `col`); the matrix is never built.
    Elements whose input coordinate falls in the padding, or past the
    matrix, read as zero (a clipped view), so the window needs no padded
    copy of `X`. The view is read-only: it is loaded or copied (global to
    shared), never written.

    For the verifier an element's coordinate is its (row, column) in the
    im2col matrix: tags on the view are checked against it, and a reduction
    over the columns must cover R1 * .. * Rd * C.

    ```mlir
    %a = argus.im2col_view "X" %X[%p0, %k0] window [3, 3] stride [1, 1] pad [1, 1] dilation [1, 1]
        : memref<?x?x?x?xf16> -> !argus.tile<64x32xf16, global>
    ```
  }];
  let arguments = (ins StrAttr:$name, AnyMemRef:$tensor, Index:$row,
                       Index:$col, DenseI64ArrayAttr:$window,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$pad,
                       DenseI64ArrayAttr:$dilation);
  let results = (outs Argus_MemTile:$result);
  let assemblyFormat = [{
    $name $tensor `[` $row `,` $col `]` `window` $window `stride` $stride
    `pad` $pad `dilation` $dilation attr-dict `:` type($tensor) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Argus_AllocOp : Argus_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate a (multi-stage) shared-memory buffer";
  let description = [{
    ```mlir
    %sa = argus.alloc "sA" : !argus.buffer<2 x !argus.tile<128x32xf16, shared, "(128,32):(32,1)">>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Argus_BufferType:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Argus_StageOp : Argus_Op<"stage",
    [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "select one stage of a shared-memory buffer";
  let description = [{
    ```mlir
    %s = argus.stage %sa[%i] : !argus.buffer<2 x !argus.tile<...>>
    ```
    The result type is the buffer's tile type. The stage index must be in
    `[0, stages)`; the tag verifier checks this for all iterations.
  }];
  let arguments = (ins Argus_BufferType:$buffer, Index:$index);
  let results = (outs Argus_MemTile:$result);
  let assemblyFormat = "$buffer `[` $index `]` attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Argus_LoadOp : Argus_Op<"load"> {
  let summary = "read a memory tile into registers";
  let description = [{
    Every thread reads the elements its register layout assigns to it.
    Elements of a clipped view that lie outside the tensor read as zero, or
    as `other` (Triton's `other=`: `-inf` before a row maximum, for
    example).

    ```mlir
    %af = argus.load %s : !argus.tile<128x32xf16, shared, "..."> -> !argus.tile<128x32xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>>
    %x = argus.load %g other 0xFF800000 : f32 : !argus.tile<4x128xf32, global> -> !argus.tile<4x128xf32, register, "(128,4):(1,128)">
    ```
  }];
  let arguments = (ins Arg<Argus_MemTile, "", [MemRead]>:$source,
                       OptionalAttr<TypedAttrInterface>:$other);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $source (`other` $other^)? attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_StoreOp : Argus_Op<"store"> {
  let summary = "write a register tile to memory, or accumulate it atomically";
  let description = [{
    ```mlir
    argus.store %acc, %c : !argus.tile<128x128xf32, register, #argus.frag<...>>, !argus.tile<128x128xf32, global>
    argus.store %part, %colsum atomic add : !argus.tile<1x128xf32, register, "...">, !argus.tile<1x128xf32, global>
    ```

    With `atomic KIND` every element of `dest` becomes `dest KIND value`
    with one atomic read-modify-write (`add`: integers and floats; `max`,
    `min`: signed integers), so many blocks may accumulate into one global
    element (cross-block reductions, split-K, histograms). The destination
    must be global memory. Elements outside a clipped view are skipped, as
    for plain stores; a replicated register tile whose replicas are equal
    adds each element once (from its first holder).
  }];
  let arguments = (ins Argus_RegTile:$value,
                       Arg<Argus_MemTile, "", [MemWrite]>:$dest,
                       OptionalAttr<Argus_AtomicKind>:$atomic);
  let assemblyFormat = [{
    $value `,` $dest (`atomic` $atomic^)? attr-dict `:` type($value) `,`
    type($dest)
  }];
  let hasVerifier = 1;
}

class Argus_CopyBase<string mnemonic, string kind> : Argus_Op<mnemonic> {
  let arguments = (ins Arg<Argus_MemTile, "", [MemRead]>:$source,
                       Arg<Argus_MemTile, "", [MemWrite]>:$dest,
                       Argus_LayoutAttr:$threads);
  let assemblyFormat = [{
    $source `,` $dest `threads` custom<LayoutString>($threads) attr-dict `:`
    type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Argus_CopyOp : Argus_CopyBase<"copy", "synchronous"> {
  let summary = "copy a tile between memory spaces";
  let description = [{
    A collective copy; `threads` maps `(thread, slot)` to the linear logical
    coordinate each thread moves (which thread writes which element).

    ```mlir
    argus.copy %a, %s threads "((4,64),(8,2)):((1024,1),(128,64))" : !argus.tile<128x32xf16, global>, !argus.tile<128x32xf16, shared, "...">
    ```
  }];
}

def Argus_CopyAsyncOp : Argus_CopyBase<"copy_async", "asynchronous"> {
  let summary = "asynchronous global-to-shared copy (cp.async / buffer_load lds)";
  let description = [{
    Like `argus.copy`, but the data lands only once the copy's group is
    complete: issue copies, close the group with `argus.commit_group`, and
    wait with `argus.wait_group` (plus `argus.barrier` for other threads).
  }];
}

def Argus_CommitGroupOp : Argus_Op<"commit_group"> {
  let summary = "close the current group of asynchronous copies";
  let assemblyFormat = "attr-dict";
}

def Argus_WaitGroupOp : Argus_Op<"wait_group"> {
  let summary = "wait until at most `pending` copy groups are in flight";
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Argus_AssumeOp : Argus_Op<"assume"> {
  let summary = "a precondition of the kernel on its arguments";
  let description = [{
    States a condition on the kernel's arguments, block ids and values loaded
    at its entry that every launch must satisfy (`K` a multiple of the tile,
    `K >= 32 * (S - 1)`, ...), with the message a user sees when it fails.
    The tag verifier proves the kernel for launches that satisfy every
    `argus.assume` (and only those); the lowering checks the condition at
    the start of the kernel and traps when it does not hold, so a launch
    outside the proved domain fails instead of computing a wrong answer.
    It sits at the top level of the kernel body.

    ```mlir
    %ok = arith.cmpi uge, %K, %c64 : index
    argus.assume %ok, "K >= 32 * (S - 1)"
    ```
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
  let hasVerifier = 1;
}

def Argus_AssumeIndicesOp : Argus_Op<"assume_indices"> {
  let summary = "a precondition on the data of an index tensor";
  let description = [{
    States what every launch guarantees about the entries of `tensor`, a
    1-D integer kernel argument whose entries are row indices of
    `argus.gather_view`s (a MoE layer's sorted token ids): each entry is
    below `bound`, and with `distinct` no two entries are equal. Indices
    are data, which the tag verifier cannot see: it proves gathered rows in
    bounds (`bound` at most the gathered tensor's rows), and a gathered
    store writing no element twice (`non-injective-write`, `output-once`:
    distinct positions of `tensor` are distinct rows), from this
    declaration only, and lists it among the kernel's assumptions. Without
    it those checks are unknown. The lowering emits no code for it: the
    launch ABI carries it (`indices`) and the Python launcher checks the
    entries before a launch.

    ```mlir
    %rows = memref.dim %Y, %c0 : memref<?x?xbf16>
    argus.assume_indices %sorted_ids below %rows distinct, "slot ids are distinct rows of Y"
        : memref<?xi32>
    ```
  }];
  let arguments = (ins AnyMemRef:$tensor, Index:$bound, UnitAttr:$distinct,
                       StrAttr:$message);
  let assemblyFormat = [{
    $tensor `below` $bound (`distinct` $distinct^)? `,` $message attr-dict
    `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def Argus_BarrierOp : Argus_Op<"barrier"> {
  let summary = "barrier of the executing threads (the block, or a warp role)";
  let description = [{
    At the kernel's top level a block-wide barrier (`bar.sync 0` /
    `s_barrier`). Inside a warp role it synchronises the role's threads only
    (a named barrier, `bar.sync id, threads`, one id per role): the other
    roles never reach it and are not waited for.
  }];
  let assemblyFormat = "attr-dict";
}

def Argus_TransposeOp : Argus_Op<"transpose", [Pure]> {
  let summary = "view a 2-D memory tile with its dimensions swapped";
  let description = [{
    No data moves: element `(i, j)` of the result is element `(j, i)` of the
    input, so the result's layout is the input's with its modes swapped.

    ```mlir
    %kt = argus.transpose %k : !argus.tile<64x128xf16, shared, "(64,128):(128,1)"> -> !argus.tile<128x64xf16, shared, "(128,64):(1,128)">
    ```
  }];
  let arguments = (ins Argus_MemTile:$input);
  let results = (outs Argus_MemTile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_ReinterpretOp : Argus_Op<"reinterpret", [Pure]> {
  let summary = "view the same shared memory through another layout";
  let description = [{
    The result addresses the same bytes as the input with a different
    layout (for example an unswizzled view of a swizzled buffer). Shape,
    element type and memory space are kept.
  }];
  let arguments = (ins Argus_MemTile:$input);
  let results = (outs Argus_MemTile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Argus_MmaOp : Argus_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix-core multiply-accumulate with a named instruction";
  let description = [{
    `result = acc + a * b` computed with the named instruction, over the
    warp grid and repetitions given by the operands' fragment layouts.
    Supported: AMD gfx942 `v_mfma_*` and NVIDIA `mma.m16n8k16.*`,
    `wgmma.m64nNk16.*`. Register operands carry `#argus.frag` layouts; the
    wgmma B operand (and A for the `.ss` forms) is a shared-memory tile.

    ```mlir
    %c2 = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<...>, !argus.tile<...>, !argus.tile<...>
    ```
  }];
  let arguments = (ins StrAttr:$instr, Argus_AnyTile:$a, Argus_AnyTile:$b,
                       Argus_RegTile:$acc);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $instr $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

// Elementwise ops print one type for their operands and result
// (custom<SharedType>) and check that they share it with Argus_SameTileTypes,
// whose errors say what differs (shape, element type or layout) by kind.
class Argus_BinaryOp<string mnemonic>
    : Argus_Op<mnemonic, [Pure, Argus_SameTileTypes]> {
  let arguments = (ins Argus_RegTile:$lhs, Argus_RegTile:$rhs);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<SharedType>(type($lhs), type($rhs), type($result))
  }];
}

def Argus_AddOp : Argus_BinaryOp<"add"> { let summary = "elementwise add"; }
def Argus_SubOp : Argus_BinaryOp<"sub"> { let summary = "elementwise subtract"; }
def Argus_MulOp : Argus_BinaryOp<"mul"> { let summary = "elementwise multiply"; }
def Argus_DivOp : Argus_BinaryOp<"div"> { let summary = "elementwise divide"; }
def Argus_MaxOp : Argus_BinaryOp<"max"> { let summary = "elementwise maximum"; }
def Argus_MinOp : Argus_BinaryOp<"min"> { let summary = "elementwise minimum"; }

class Argus_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Argus_Op<mnemonic, !listconcat([Pure, Argus_SameTileTypes], traits)> {
  let arguments = (ins Argus_RegTile:$input);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $input attr-dict `:` custom<SharedType>(type($input), type($result))
  }];
}

/// Transcendental functions: float tiles only. f16 and bf16 elements are
/// computed in f32 by the lowering (docs/Lowering.md says how each is
/// computed per target).
class Argus_FloatUnaryOp<string mnemonic>
    : Argus_UnaryOp<mnemonic, [Argus_FloatTiles]>;

def Argus_ExpOp : Argus_FloatUnaryOp<"exp"> { let summary = "elementwise e^x"; }
def Argus_Exp2Op : Argus_FloatUnaryOp<"exp2"> {
  let summary = "elementwise 2^x";
}
def Argus_NegOp : Argus_UnaryOp<"neg"> { let summary = "elementwise negation"; }
def Argus_AbsOp : Argus_UnaryOp<"abs", [Argus_NoMaskTiles]> {
  let summary = "elementwise |x|";
}
def Argus_ReluOp : Argus_UnaryOp<"relu", [Argus_NoMaskTiles]> {
  let summary = "elementwise max(x, 0)";
}

def Argus_SqrtOp : Argus_FloatUnaryOp<"sqrt"> {
  let summary = "elementwise square root";
}
def Argus_RsqrtOp : Argus_FloatUnaryOp<"rsqrt"> {
  let summary = "elementwise 1 / sqrt(x)";
}
def Argus_LogOp : Argus_FloatUnaryOp<"log"> {
  let summary = "elementwise natural logarithm";
}
def Argus_Log2Op : Argus_FloatUnaryOp<"log2"> {
  let summary = "elementwise base-2 logarithm";
}
def Argus_TanhOp : Argus_FloatUnaryOp<"tanh"> {
  let summary = "elementwise hyperbolic tangent";
}
def Argus_SigmoidOp : Argus_FloatUnaryOp<"sigmoid"> {
  let summary = "elementwise 1 / (1 + e^-x)";
}
def Argus_GeluOp : Argus_FloatUnaryOp<"gelu"> {
  let summary = "elementwise GELU, the exact (erf) form";
  let description = [{
    `0.5 * x * (1 + erf(x / sqrt(2)))`, not the tanh approximation. The
    lowering evaluates erf with Abramowitz & Stegun 7.1.26 (absolute error
    below 1.5e-7) on top of the target's exp2.
  }];
}

def Argus_SplatOp : Argus_Op<"splat", [Pure]> {
  let summary = "a register tile with every element equal to a scalar value";
  let description = [{
    The run-time counterpart of `argus.fill`: a kernel argument (`eps`), a
    block offset or any scalar SSA value meets a tile through a splat.
    The scalar's type is the tile's element type, or `index` for an integer
    tile (truncated or extended to the element width).

    ```mlir
    %e = argus.splat %eps : f32 -> !argus.tile<64xf32, register, "(64,1):(1,0)">
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyFloat, AnySignlessInteger, Index]>:$value);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_CmpOp : Argus_Op<"cmp", [Pure]> {
  let summary = "elementwise comparison giving an i1 mask tile";
  let description = [{
    Floats compare ordered (`lt le gt ge eq` are false when either side is
    NaN) except `ne`, which is true then (C's `!=`); integers compare
    signed. The result has the operands' shape and layout and element type
    `i1`.

    ```mlir
    %m = argus.cmp lt %col, %n : !argus.tile<64x64xi32, register, "..."> -> !argus.tile<64x64xi1, register, "...">
    ```
  }];
  let arguments = (ins Argus_CmpPredicate:$predicate, Argus_RegTile:$lhs,
                       Argus_RegTile:$rhs);
  let results = (outs Argus_MaskTile:$result);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs attr-dict `:`
    custom<SharedType>(type($lhs), type($rhs)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_SelectOp : Argus_Op<"select", [Pure]> {
  let summary = "elementwise choice by a mask: mask ? lhs : rhs";
  let description = [{
    The mask is an i1 tile of the same shape and layout as the values
    (`argus.cmp` makes one).

    ```mlir
    %r = argus.select %m, %x, %neg_inf : !argus.tile<64x64xi1, register, "...">, !argus.tile<64x64xf32, register, "...">
    ```
  }];
  let arguments = (ins Argus_RegTile:$mask, Argus_RegTile:$lhs,
                       Argus_RegTile:$rhs);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $mask `,` $lhs `,` $rhs attr-dict `:` type($mask) `,`
    custom<SharedType>(type($lhs), type($rhs), type($result))
  }];
  let hasVerifier = 1;
}

def Argus_IotaOp : Argus_Op<"iota", [Pure]> {
  let summary = "each element's coordinate along one dimension";
  let description = [{
    Element `(i0, i1, ...)` of the result is `i_dim`, its coordinate in the
    tile (add a splat of the block offset for the global one). Integer
    element types only.

    ```mlir
    %col = argus.iota dim 1 : !argus.tile<64x64xi32, register, "...">
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Argus_ScaleOp : Argus_Op<"scale", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "multiply every element by a constant";
  let arguments = (ins Argus_RegTile:$input, F64Attr:$factor);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = "$input `by` $factor attr-dict `:` type($result)";
}

def Argus_ConvertOp : Argus_Op<"convert", [Pure]> {
  let summary = "convert element type, keeping shape and layout";
  let arguments = (ins Argus_RegTile:$input);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_ConvertLayoutOp : Argus_Op<"convert_layout", [Pure]> {
  let summary = "redistribute a register tile to another layout";
  let description = [{
    Same shape and element type; each element moves to the `(thread, slot)`
    that the result layout assigns to its logical coordinate.
  }];
  let arguments = (ins Argus_RegTile:$input);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_FillOp : Argus_Op<"fill", [Pure]> {
  let summary = "a register tile with every element equal to a constant";
  let arguments = (ins F64Attr:$value);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Argus_ReduceOp : Argus_Op<"reduce", [Pure]> {
  let summary = "reduce a register tile along one dimension";
  let description = [{
    ```mlir
    %m = argus.reduce max %s dim 1 : !argus.tile<64x64xf32, register, "..."> -> !argus.tile<64xf32, register, "...">
    ```
  }];
  let arguments = (ins Argus_ReduceKind:$kind, Argus_RegTile:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $kind $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_ScanOp : Argus_Op<"scan", [Pure]> {
  let summary = "inclusive prefix scan of a register tile along one dimension";
  let description = [{
    `result[..., p, ...] = KIND over q <= p of input[..., q, ...]` along
    `dim` (`sum`, `prod`, `max`, `min`; the reduction kinds). The result has
    the input's type: same shape, element type and register layout.

    ```mlir
    %c = argus.scan sum %x dim 1 : !argus.tile<64x128xf32, register, "..."> -> !argus.tile<64x128xf32, register, "...">
    ```

    The lowering scans each thread's own elements of a row in order, then
    the threads that share the row (shuffles within a warp, the shared
    scratch across warps); it needs every thread of a row to hold the same
    number of equally long runs of consecutive elements, the threads of a
    row interleaved by a power-of-two stride of the thread id (the blocked
    layouts of `argus.copy_layout` and the reduce/broadcast layouts do).
  }];
  let arguments = (ins Argus_ReduceKind:$kind, Argus_RegTile:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $kind $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_BroadcastOp : Argus_Op<"broadcast", [Pure]> {
  let summary = "broadcast a register tile along a new dimension";
  let arguments = (ins Argus_RegTile:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Hopper (sm_90a): tensor maps, bulk tensor copies, mbarriers, warp roles,
// asynchronous wgmma
//===----------------------------------------------------------------------===//

def Argus_TensorMapOp : Argus_Op<"tensor_map", [Pure]> {
  let summary = "a TMA tensor map over a kernel argument";
  let description = [{
    Declares the descriptor that bulk tensor copies of `tensor` use. It sits
    at the top level of the kernel and `tensor` is a kernel argument: the
    host encodes it from that argument (row-major, the whole tensor, out-of-
    bounds elements read as zero) and passes it as a kernel parameter.

    ```mlir
    %tmA = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<128x64xbf16, swizzle = 128>
    ```
  }];
  let arguments = (ins StrAttr:$name, AnyMemRef:$tensor);
  let results = (outs Argus_TensorMapType:$result);
  let assemblyFormat = [{
    $name $tensor attr-dict `:` type($tensor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_TmaLoadOp : Argus_Op<"tma_load"> {
  let summary = "bulk tensor copy global -> shared completing on an mbarrier";
  let description = [{
    Copies the global tile `source` (an `argus.view` of the tensor that
    `map` describes, possibly tagged) into the shared tile `dest` with one
    `cp.async.bulk.tensor` per box of `map` (boxes in row-major order, each
    landing `box bytes` after the previous one, swizzled as the map says;
    `dest`'s layout must be exactly that placement). One thread of the
    executing role (or block) issues the copies; their bytes count towards
    the transaction count of `barrier[stage]`'s current phase, which must
    have been announced by `argus.mbarrier.arrive_expect_tx`. The data may be
    read only after a wait on that phase.

    With `multicast` (a kernel with a thread-block cluster of n blocks), the
    blocks of a cluster load the tile together: the block of rank r in the
    cluster issues boxes j with j % n == r, each delivered to `dest` and
    completing on `barrier[stage]` in every block of the cluster, so each
    block's phase receives the whole tile's bytes. The contract, which the
    verifier checks: every block of the cluster runs the copy at the same
    iterations with the same stage and slot (`cluster-lockstep`), the
    consumers of every block release the stage to every block's producer
    (`argus.mbarrier.arrive ... cluster`), and whatever the blocks' source
    views differ in reaches the readers' tags (a block then reads another
    block's boxes).

    ```mlir
    argus.tma_load %ga, %sa0, %tmA, %full[%s] : !argus.tile<128x64xbf16, global>, !SA, !argus.tensor_map<128x64xbf16, swizzle = 128>, !argus.mbarrier<4>
    argus.tma_load %gb, %sb0, %tmB, %full[%s] multicast : !GB, !SB, !TB, !argus.mbarrier<4>
    ```
  }];
  let arguments = (ins Arg<Argus_MemTile, "", [MemRead]>:$source,
                       Arg<Argus_MemTile, "", [MemWrite]>:$dest,
                       Argus_TensorMapType:$map,
                       Argus_MBarrierType:$barrier, Index:$stage,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $source `,` $dest `,` $map `,` $barrier `[` $stage `]`
    (`multicast` $multicast^)? attr-dict `:`
    type($source) `,` type($dest) `,` type($map) `,` type($barrier)
  }];
  let hasVerifier = 1;
}

def Argus_MBarrierAllocOp : Argus_Op<"mbarrier.alloc",
    [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate and initialise a ring of mbarriers";
  let description = [{
    One mbarrier per stage in shared memory, each initialised with
    `arrivals` expected arrivals per phase (thread 0 initialises, then a
    fence and a block barrier make the initialisation visible). At the top
    level of the kernel, before any role.

    ```mlir
    %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<4>
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       ConfinedAttr<I64Attr, [IntPositive]>:$arrivals);
  let results = (outs Argus_MBarrierType:$result);
  let assemblyFormat = "$name `arrivals` $arrivals attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Argus_MBarrierArriveOp : Argus_Op<"mbarrier.arrive"> {
  let summary = "every executing thread arrives on barrier[stage]";
  let description = [{
    Each thread of the role (or block) executing it arrives once, with
    release semantics: its earlier shared-memory accesses (and, after an
    `argus.wgmma_wait`, the retired wgmma reads) happen before the phase
    completes.

    With `cluster` (a kernel with a thread-block cluster of n blocks), each
    thread arrives on barrier[stage] of every block of the cluster (n
    arrivals, `mbarrier.arrive.shared::cluster` through `mapa`): how the
    consumers of every block release a stage that multicast copies refill
    in all of them. Each block's barrier then counts n times the arriving
    threads per phase.

    ```mlir
    argus.mbarrier.arrive %empty[%s] : !argus.mbarrier<4>
    argus.mbarrier.arrive %empty[%s] cluster : !argus.mbarrier<4>
    ```
  }];
  let arguments = (ins Argus_MBarrierType:$barrier, Index:$stage,
                       UnitAttr:$cluster);
  let assemblyFormat = [{
    $barrier `[` $stage `]` (`cluster` $cluster^)? attr-dict `:` type($barrier)
  }];
  let hasVerifier = 1;
}

def Argus_MBarrierArriveExpectTxOp : Argus_Op<"mbarrier.arrive_expect_tx"> {
  let summary = "one thread announces transaction bytes and arrives";
  let description = [{
    One thread of the role (or block) adds `bytes` to the pending transaction
    count of barrier[stage]'s current phase and arrives once. The phase
    completes when every arrival has come and the bulk copies have delivered
    exactly that many bytes.

    ```mlir
    argus.mbarrier.arrive_expect_tx %full[%s], 32768 : !argus.mbarrier<4>
    ```
  }];
  let arguments = (ins Argus_MBarrierType:$barrier, Index:$stage,
                       ConfinedAttr<I64Attr, [IntPositive]>:$bytes);
  let assemblyFormat = [{
    $barrier `[` $stage `]` `,` $bytes attr-dict `:` type($barrier)
  }];
  let hasVerifier = 1;
}

def Argus_MBarrierWaitOp : Argus_Op<"mbarrier.wait"> {
  let summary = "wait until the phase of barrier[stage] with `parity` completes";
  let description = [{
    Every executing thread waits (`mbarrier.try_wait.parity` in a loop)
    until the phase of barrier[stage] whose parity is `parity` (0 or 1) has
    completed; the arrivals and copies of that phase then happen before the
    thread's later accesses. A ring of S stages used in order has parity
    `(i / S) % 2` at iteration `i`.

    ```mlir
    argus.mbarrier.wait %full[%s], %phase : !argus.mbarrier<4>
    ```
  }];
  let arguments = (ins Argus_MBarrierType:$barrier, Index:$stage,
                       Index:$parity);
  let assemblyFormat = [{
    $barrier `[` $stage `]` `,` $parity attr-dict `:` type($barrier)
  }];
  let hasVerifier = 1;
}

def Argus_TmaStoreOp : Argus_Op<"tma_store"> {
  let summary = "bulk tensor copy shared -> global, asynchronous";
  let description = [{
    Copies the shared tile `source` into the global tile `dest` (an
    `argus.view` of the tensor that `map` describes, possibly tagged and
    clipped: the copy writes only what lies inside the tensor) with one
    `cp.async.bulk.tensor` per box of `map`, `source`'s layout being exactly
    the boxes' placement. One thread of the executing role (or block) issues
    the copies and commits them as one bulk group. The copy reads `source`
    through the async proxy until an `argus.tma_store_wait` retires the
    group: the writes that filled `source` must be fenced
    (`argus.fence_proxy_async`) and ordered before it by a barrier, and
    `source` may be overwritten only after the wait and a barrier.

    ```mlir
    argus.tma_store %sc, %gc, %tmC : !SC, !argus.tile<128x256xbf16, global>, !argus.tensor_map<128x64xbf16, swizzle = 128>
    ```
  }];
  let arguments = (ins Arg<Argus_MemTile, "", [MemRead]>:$source,
                       Arg<Argus_MemTile, "", [MemWrite]>:$dest,
                       Argus_TensorMapType:$map);
  let assemblyFormat = [{
    $source `,` $dest `,` $map attr-dict `:`
    type($source) `,` type($dest) `,` type($map)
  }];
  let hasVerifier = 1;
}

def Argus_TmaStoreWaitOp : Argus_Op<"tma_store_wait"> {
  let summary = "wait until bulk stores no longer read shared memory";
  let description = [{
    `cp.async.bulk.wait_group.read pending` by the thread that issues the
    role's `argus.tma_store`s: every bulk store group but the `pending` most
    recent has finished reading its shared source (a barrier then tells the
    other threads that the source may be overwritten). Every bulk store must
    be retired this way before its role (or kernel) ends.

    ```mlir
    argus.tma_store_wait 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Argus_FenceProxyAsyncOp : Argus_Op<"fence_proxy_async"> {
  let summary = "order this thread's generic-proxy shared writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: shared memory written by ordinary
    stores becomes visible to bulk copies and wgmma operand reads once each
    writing thread has fenced and a barrier (or mbarrier phase) orders the
    write before the asynchronous read.
  }];
  let assemblyFormat = "attr-dict";
}

def Argus_NamedBarrierSyncOp : Argus_Op<"named_barrier.sync"> {
  let summary = "wait at named barrier `slot` until `threads` threads arrived";
  let description = [{
    `bar.sync 8 + slot, threads`: each executing thread arrives and waits
    until `threads` threads (these and those of `argus.named_barrier.arrive`
    on the same slot) have arrived. Slots 0-7 are hardware barriers 8-15
    (0 is the block's, 1-7 the warp roles'); `threads` is a multiple of 32.

    For *issue scheduling* between warpgroups, e.g. a ping-pong where one
    consumer warpgroup issues its wgmma while the other runs its softmax or
    epilogue: the verifier gives named barriers no ordering (proofs never
    rest on them; order data with `argus.barrier` or mbarriers) and does
    not check that their arrivals match.

    ```mlir
    argus.named_barrier.sync %wg, 256
    ```
  }];
  let arguments = (ins Index:$slot, ConfinedAttr<I64Attr, [IntPositive]>:$threads);
  let assemblyFormat = "$slot `,` $threads attr-dict";
  let hasVerifier = 1;
}

def Argus_NamedBarrierArriveOp : Argus_Op<"named_barrier.arrive"> {
  let summary = "arrive at named barrier `slot` without waiting";
  let description = [{
    `bar.arrive 8 + slot, threads`: each executing thread counts towards the
    `threads` arrivals that `argus.named_barrier.sync` on the slot waits
    for, and goes on. Issue scheduling only, like `named_barrier.sync`.
  }];
  let arguments = (ins Index:$slot, ConfinedAttr<I64Attr, [IntPositive]>:$threads);
  let assemblyFormat = "$slot `,` $threads attr-dict";
  let hasVerifier = 1;
}

def Argus_RoleOp : Argus_Op<"role", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "a warp role: code run by a contiguous range of warps";
  let description = [{
    Warps `[first_warp, first_warp + num_warps)` of the block run the body;
    the other warps skip it. Inside, thread indices (of register layouts and
    copy thread layouts) count from the role's first thread. Roles of one
    kernel are disjoint and communicate only through shared memory ordered by
    mbarriers; a block-wide `argus.barrier` inside a role would deadlock and
    is rejected. With `regs`, the role's warpgroups set their register budget
    (`setmaxnreg`, a multiple of 8 in [24, 256]); the role must then be made
    of whole warpgroups.

    ```mlir
    argus.role "producer" warps 0 to 4 regs 40 {
      ...
    }
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$first_warp,
                       ConfinedAttr<I64Attr, [IntPositive]>:$end_warp,
                       OptionalAttr<I64Attr>:$regs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `warps` $first_warp `to` $end_warp (`regs` $regs^)? $body attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumWarps() { return getEndWarp() - getFirstWarp(); }
  }];
}

def Argus_MmaAsyncOp : Argus_Op<"mma_async", [AllTypesMatch<["acc", "result"]>]> {
  let summary = "issue a wgmma without waiting for it";
  let description = [{
    Like `argus.mma` with a `wgmma` instruction, but asynchronous: the
    instructions are issued (`wgmma.fence` first) and the result is pending
    until an `argus.wgmma_wait` retires the group that contains it. Until
    then its shared-memory operands are still being read and the result may
    only feed another `argus.mma_async` (as `acc`) or an `argus.wgmma_wait`.
    Close the group with `argus.wgmma_commit`.

    ```mlir
    %acc1 = argus.mma_async "wgmma.m64n256k16.f32.bf16.ss" %sa, %sb, %acc0 : !SA, !SB, !RC
    ```
  }];
  let arguments = (ins StrAttr:$instr, Argus_AnyTile:$a, Argus_AnyTile:$b,
                       Argus_RegTile:$acc);
  let results = (outs Argus_RegTile:$result);
  let assemblyFormat = [{
    $instr $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Argus_WgmmaCommitOp : Argus_Op<"wgmma_commit"> {
  let summary = "close the current group of asynchronous wgmma operations";
  let assemblyFormat = "attr-dict";
}

def Argus_WgmmaWaitOp : Argus_Op<"wgmma_wait",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "retire all but the `pending` most recent wgmma groups";
  let description = [{
    `wgmma.wait_group pending`: every group committed before the `pending`
    most recent ones has retired, so its results are ready and its shared
    operands are no longer read. `values` are accumulators of those groups;
    the results are the same values, usable from here on.

    ```mlir
    %acc2 = argus.wgmma_wait 1, %acc1 : !RC
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending,
                       Variadic<Argus_RegTile>:$values);
  let results = (outs Variadic<Argus_RegTile>:$results);
  let assemblyFormat = [{
    $pending (`,` $values^ `:` type($values))? attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// Regions and tags
//===----------------------------------------------------------------------===//

def Argus_RegionBeginOp : Argus_Op<"region.begin"> {
  let summary = "start of a measured semantic region";
  let description = [{
    Opens region `name` with the stable integer `id`. Every begin has one
    `argus.region.end` with the same ID later in the same block; regions
    nest and never cross; IDs are unique within a kernel. The markers have
    side effects so that no pass moves, merges or drops them.

    ```mlir
    argus.region.begin "mainloop" id 1
    ```
  }];
  let arguments = (ins StrAttr:$name, ConfinedAttr<I64Attr, [IntNonNegative]>:$id);
  let assemblyFormat = "$name `id` $id attr-dict";
  let hasVerifier = 1;
}

def Argus_RegionEndOp : Argus_Op<"region.end"> {
  let summary = "end of a measured semantic region";
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$id);
  let assemblyFormat = "`id` $id attr-dict";
  let hasVerifier = 1;
}

def Argus_TagOp : Argus_Op<"tag", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "attach named symbolic tags to every element of a tile";
  let description = [{
    Field `fields[j]` of the element at logical coordinate `(d0, d1, ...)`
    is result `j` of `map`, whose dimensions are the coordinate and whose
    symbols are `symbols` (block ids, loop induction variables, kernel
    parameters). Tags exist only in the compiler.

    ```mlir
    %at = argus.tag %a [%bm, %kt] ["m", "k"] = affine_map<(d0, d1)[s0, s1] -> (d0 + s0 * 128, d1 + s1 * 32)> : !argus.tile<128x32xf16, register, "...">
    ```
  }];
  let arguments = (ins Argus_AnyTile:$input, Variadic<Index>:$symbols,
                       StrArrayAttr:$fields, AffineMapAttr:$map);
  let results = (outs Argus_AnyTile:$result);
  let assemblyFormat = [{
    $input `[` $symbols `]` $fields `=` $map attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Argus_TagAssertOp : Argus_Op<"tag_assert"> {
  let summary = "a relation between tags that must hold at a use site";
  let description = [{
    `predicate` is checked for every thread, slot and loop iteration at the
    op that defines `subject`. It names operands of that op by their
    operand name (`a.k`, `b.k`, `acc.m`, `lhs.m`, `value.n`) and the op's
    own result as `result`. Conformity (`a.k == b.k`), non-conformity
    (`!=`) and range facts (`result.m < 128`) combine with `&&`, `||`, `!`.

    Without a subject the assertion is checked at the op just before it
    (for ops without results such as `argus.store`, whose operands are
    `value` and `dest`):

    ```mlir
    argus.tag_assert %c2, "a.k == b.k && result.m == a.m" : !argus.tile<...>
    argus.store %acc, %c : ...
    argus.tag_assert "value.m == dest.m && value.n == dest.n"
    ```
  }];
  let arguments = (ins Optional<AnyType>:$subject, StrAttr:$predicate);
  let assemblyFormat = [{
    ($subject^ `,`)? $predicate attr-dict (`:` type($subject)^)?
  }];
  let extraClassDeclaration = [{
    /// The op at which the predicate is checked: the subject's defining op,
    /// or the op just before this one when there is no subject.
    ::mlir::Operation *getSite();
  }];
  let hasVerifier = 1;
}

def Argus_ReducedOp : Argus_Op<"reduced"> {
  let summary = "the range of the reduced index an accumulator holds";
  let description = [{
    States what a reduction computed: every row of `acc` (the result of an
    mma accumulated by a loop, and by any mma after it, through rescaling
    ops) accumulated each value of the reduced tag field `field` (A's tag
    field along the mma's k dimension) in `[lo, hi)` exactly once. The
    verifier's `reduction-range` check proves it from the reduction's start,
    the loop's last iteration and the mmas after the loop. Without it, a
    reduction whose start a fresh accumulator declares (one attention head's
    keys) has no checked end.

    ```mlir
    // The keys P V accumulated: this head's, [head0, head0 + S).
    argus.reduced %o_fin over "n" from %head0 to %hend : !RO
    ```
  }];
  let arguments = (ins AnyType:$acc, StrAttr:$field, Index:$lo, Index:$hi);
  let assemblyFormat = [{
    $acc `over` $field `from` $lo `to` $hi attr-dict `:` type($acc)
  }];
  let hasVerifier = 1;
}

#endif // ARGUS_DIALECT_ARGUSOPS_TD
