// Every error argus-to-gpu emits (lib/Conversion/ArgusToGPU), one kernel
// per distinct message; after a pattern's located error the conversion
// driver's "failed to legalize operation" follow-up is dropped (it repeats
// the location and buries the reason), as -verify-diagnostics checks: an
// unexpected extra error fails it. The lowering's warning (the
// register budget) is here too. Errors that no input can reach are listed
// in docs/Lowering.md ("Errors").

// RUN: argus-opt %s -split-input-file -verify-diagnostics --argus-to-gpu -o /dev/null
// The same errors as a user sees them: no op dumps (whose operands print as
// <<UNKNOWN SSA VALUE>>), no follow-ups.
// RUN: not argus-opt %s -split-input-file --argus-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET: error:
// QUIET-NOT: see current operation
// QUIET-NOT: UNKNOWN SSA VALUE
// QUIET-NOT: failed to legalize
// A chip the lowering does not know (only the target override can name
// one: the kernel attribute's verifier rejects it first).
// RUN: not argus-opt %s -split-input-file --argus-to-gpu=target=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// The errors of sm_90a-only ops lowered for gfx942, which only the target
// override reaches (the dialect's verifier rejects the ops, instructions
// and register budgets on a gfx942 kernel): the sm_90a kernels marked GFX
// below, lowered for gfx942.
// RUN: not argus-opt %s -split-input-file --argus-to-gpu=target=gfx942 -o /dev/null 2>&1 | FileCheck %s --check-prefix=GFX
// CHIP: error: argus-to-gpu: unknown target chip 'sm_80'; hint: use "gfx942", "sm_90" or "sm_90a"

//===----------------------------------------------------------------------===//
// Kernels (ArgusToGPU.cpp, KernelOutlining.cpp)
//===----------------------------------------------------------------------===//

func.func @negative_dim(%A: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %cm1 = arith.constant -1 : index
  // expected-error @+1 {{memref.dim index -1 is outside the rank 2 of its memref (hint: dimensions count from 0)}}
  %d = memref.dim %A, %cm1 : memref<?x?xf32>
  return
}

// -----

// An argus op in a function that is not a kernel (issue 54: it crashed the
// lowering; test/lit/Conversion/non-kernel-functions.mlir has the others).
// expected-note @+1 {{the function is declared here}}
func.func @not_a_kernel() {
  // expected-error @+1 {{argus-to-gpu: 'argus.fill' is in function 'not_a_kernel', which is not an argus kernel; argus ops are lowered only inside kernels; hint: mark the function with attributes}}
  %f = argus.fill 0.0 : !argus.tile<32x4xf32, register, "(32,4):(1,32)">
  return
}

// -----

// expected-error @+1 {{'func.func' op argus-to-gpu: kernels must have one block}}
func.func @two_blocks()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  cf.br ^bb1
^bb1:
  return
}

// -----

!S = !argus.tile<256x160xf16, shared, "(256,160):(160,1)">
// expected-error @+1 {{kernel 'lds_80k' needs 81920 bytes of shared memory but a block on gfx942 may use at most 65536 bytes (64 KiB); hint: use fewer pipeline stages, smaller tiles or narrower element types}}
func.func @lds_80k()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{81920 bytes of shared memory ('__argus_lds_80k_sA') for this op}}
  %sa = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s = argus.stage %sa[%c0] : !argus.buffer<1 x !S>
  argus.barrier
  return
}

// -----

!S = !argus.tile<256x240xf16, shared, "(256,240):(240,1)">
// expected-error @+1 {{kernel 'smem_240k' needs 245760 bytes of shared memory but a block on sm_90a may use at most 232448 bytes (227 KiB of dynamic shared memory); hint: use fewer pipeline stages, smaller tiles or narrower element types}}
func.func @smem_240k()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{245760 bytes of shared memory}}
  %sa = argus.alloc "sA" : !argus.buffer<2 x !S>
  %s0 = argus.stage %sa[%c0] : !argus.buffer<2 x !S>
  argus.barrier
  return
}

// -----

// The register budget is a warning (the kernel compiles, and spills). The
// add needs 512, not 1024: x dies there, its registers taken by y as it goes.
!R = !argus.tile<32x512xf32, register, "(32,512):(1,32)">
!G = !argus.tile<32x512xf32, global>
func.func @register_budget(%X: memref<32x512xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %g = argus.view "X" %X[%c0, %c0] : memref<32x512xf32> -> !G
  // expected-warning @+2 {{the register tiles live here need at least 512 32-bit registers per thread, more than the 255 a thread has on sm_90a: the kernel will spill to local memory; hint: smaller tiles, more threads per block or fewer tiles live at once}}
  // expected-note @+1 {{512 registers per thread for this tile}}
  %x = argus.load %g : !G -> !R
  %y = argus.add %x, %x : !R
  argus.store %y, %g : !R, !G
  return
}

// -----

// The verifier checks a copy layout against the block; inside a warp role
// the lowering checks it against the role's threads.
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
func.func @copy_too_many_threads(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  argus.role "loader" warps 0 to 1 {
    %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
    // expected-error @+1 {{'argus.copy' op copy layout needs 64 threads, the block has 32}}
    argus.copy %x, %s threads "(64,4):(1,64)" : !G, !S
  }
  return
}

// -----

!G = !argus.tile<32x4xf32, global>
!R = !argus.tile<32x4xf32, register, "(32,(4,2)):(1,(32,0))">
func.func @store_slot_replicas(%Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.fill 1.0 : !R
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  // expected-error @+1 {{'argus.store' op stores a register tile whose layout holds an element in two slots of one thread; hint: convert_layout to a layout that replicates over threads only}}
  argus.store %x, %y : !R, !G
  return
}

// -----

// A register tile passed in: its replicas (the two threads of each pair
// hold the same elements) are not known to be equal, so each would add.
!G = !argus.tile<32x4xf32, global>
!R = !argus.tile<32x4xf32, register, "((32,2),4):((1,0),32)">
func.func @atomic_unequal_replicas(%Y: memref<?x?xf32>, %x: !R)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  // expected-error @+1 {{'argus.store' op accumulates a replicated register tile whose replicas are not known to be equal: every replica would add its value; hint: accumulate a tile computed by argus.reduce, a load or elementwise ops of such tiles, or argus.convert_layout it to a layout without replicas (argus.copy_layout)}}
  argus.store %x, %y atomic add : !R, !G
  return
}

// -----

!G = !argus.tile<16x16xf32, global>
!R = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">
func.func @clipped_view_in_loop(%C: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{a clipped view is used by an op that cannot read it (copy, load, store only; a clipped view also feeds TMA copies)}}
  %c = argus.view "C" %C[%i, %i] clipped : memref<?x?xf32> -> !G
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%v = %c) -> (!G) {
    scf.yield %v : !G
  }
  argus.store %x, %r : !R, !G
  return
}

// -----

!Ids = !argus.tile<16xi32, register, "(64,16):(0,1)">
!G = !argus.tile<16x16xf32, global>
!R = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">
func.func @gathered_view_in_loop(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = argus.fill 1.0 : !R
  %ids = argus.iota dim 0 : !Ids
  // expected-error @+1 {{a gathered view is used by an op that cannot read it (copy, load, store only; a clipped view also feeds TMA copies)}}
  %c = argus.gather_view "C" %C[%ids, %c0] : memref<?x?xf32>, !Ids -> !G
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%v = %c) -> (!G) {
    scf.yield %v : !G
  }
  argus.store %x, %r : !R, !G
  return
}

// -----

// A transposed global view (a marker over the view's memref) is read by
// loads and stores only; accumulating through it is refused too.
!G = !argus.tile<16x16xf32, global>
!S = !argus.tile<16x16xf32, shared, "(16,16):(16,1)">
func.func @transposed_view_copied(%A: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s = argus.stage %sa[%c0] : !argus.buffer<1 x !S>
  %a = argus.view "A" %A[%c0, %c0] : memref<?x?xf32> -> !G
  // expected-error @+1 {{a transposed global view is used by an op that cannot read it (load and store only)}}
  %t = argus.transpose %a : !G -> !G
  argus.copy %t, %s threads "(64,4):(4,1)" : !G, !S
  argus.barrier
  return
}

// -----

!G = !argus.tile<16x16xf32, global>
!R = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">
func.func @transposed_view_atomic(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.fill 1.000000e+00 : !R
  %c = argus.view "C" %C[%c0, %c0] : memref<?x?xf32> -> !G
  %t = argus.transpose %c : !G -> !G
  // expected-error @+1 {{'argus.store' op accumulates into a transposed global view; hint: store into the view itself}}
  argus.store %x, %t atomic add : !R, !G
  return
}

// -----

!R = !argus.tile<32x2xf64, register, "(32,2):(1,32)">
func.func @tanh_f64_nvptx()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.tanh' op on 'f64' needs the libdevice library, which argus does not link; hint: argus.convert the tile to f32 first}}
  %e = argus.tanh %x : !R
  return
}

// -----

!R = !argus.tile<64x2xf64, register, "(64,2):(1,64)">
func.func @log_f64_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.log' op on 'f64' needs the OCML library, which argus does not link; hint: argus.convert the tile to f32 first}}
  %e = argus.log %x : !R
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!M = !argus.tile<32x4xi1, register, "(32,4):(1,32)">
func.func @abs_mask()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %m = argus.cmp lt %x, %x : !R -> !M
  // expected-error @+1 {{'argus.abs' op is not defined on masks (i1 tiles)}}
  %a = argus.abs %m : !M
  return
}

//===----------------------------------------------------------------------===//
// Exchanges (ExchangeLowering.cpp)
//===----------------------------------------------------------------------===//

// -----

!RI = !argus.tile<128x4xf32, register, "(128,4):(1,128)">
!RO = !argus.tile<128x4xf32, register, "(128,4):(4,1)">
func.func @exchange_in_role()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  argus.role "math" warps 4 to 8 {
    %x = argus.fill 1.0 : !RI
    // expected-error @+1 {{'argus.convert_layout' op needs the shared scratch and block barriers (bar.sync 0), which the other warp roles never reach (deadlock); hint: use layouts in which every thread already holds its outputs}}
    %y = argus.convert_layout %x : !RI -> !RO
  }
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!Rows = !argus.tile<32xf32, register, "(32,1):(1,0)">
func.func @broadcast_part_of_block()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.0 : !Rows
  // expected-error @+1 {{'argus.broadcast' op lowering needs layouts over all 64 threads of the block}}
  %b = argus.broadcast %x dim 1 : !Rows -> !R
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!Rows = !argus.tile<32xf32, register, "(32,1):(1,0)">
func.func @reduce_part_of_block()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.reduce' op lowering needs layouts over all 64 threads}}
  %s = argus.reduce sum %x dim 1 : !R -> !Rows
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,(4,2)):(1,(32,0))">
!Rows = !argus.tile<32xf32, register, "(32,1):(1,0)">
func.func @reduce_element_twice()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.reduce' op cannot be lowered: a thread holds an element twice}}
  %s = argus.reduce sum %x dim 1 : !R -> !Rows
  return
}

// -----

// Both warps hold every row: summing across warps would count it twice.
!R = !argus.tile<32x4xf32, register, "((32,2),4):((1,0),32)">
!Rows = !argus.tile<32xf32, register, "((32,2),1):((1,0),0)">
func.func @reduce_warps_replicate()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.reduce' op cannot be lowered: several warps hold the same element}}
  %s = argus.reduce sum %x dim 1 : !R -> !Rows
  return
}

// -----

// Three threads share each row (two columns each).
!R = !argus.tile<4x6xf32, register, "((4,3),2):((1,8),4)">
func.func @scan_three_threads_a_row()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.scan' op cannot be lowered for this register layout: the threads that share a row are not a power of two; hint: argus.convert_layout the input to a blocked layout}}
  %s = argus.scan sum %x dim 1 : !R -> !R
  return
}

// -----

// The eight threads of a row hold its pairs of columns in bit-reversed
// order of their ids: no power-of-two stride ranks them.
!R = !argus.tile<4x16xf32, register, "((2,2,2,4),2):((32,16,8,1),4)">
func.func @scan_bit_reversed_ranks()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.scan' op cannot be lowered for this register layout: the threads that share a row are not ranked along the row by a power-of-two stride of the thread id, each holding the same runs of consecutive elements; hint: argus.convert_layout the input to a blocked layout (argus.copy_layout of the tile over the block), scan, and convert back}}
  %s = argus.scan sum %x dim 1 : !R -> !R
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,(4,2)):(1,(32,0))">
func.func @scan_element_twice()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  // expected-error @+1 {{'argus.scan' op cannot be lowered for this register layout: a thread holds an element twice}}
  %s = argus.scan sum %x dim 1 : !R -> !R
  return
}

//===----------------------------------------------------------------------===//
// Matrix cores (MmaLowering.cpp, WgmmaLowering.cpp, AsyncWgmmaLowering.cpp)
//===----------------------------------------------------------------------===//

// -----

// Lowered for gfx942 by the target override (RUN line GFX); the kernel
// attribute's verifier rejects the instruction on a gfx942 kernel.
#FragA = #argus.frag<"mma.m16n8k16.f32.f16", a, warps = [1, 1]>
#FragB = #argus.frag<"mma.m16n8k16.f32.f16", b, warps = [1, 1]>
#FragC = #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [1, 1]>
!RA = !argus.tile<16x16xf16, register, #FragA>
!RB = !argus.tile<16x8xf16, register, #FragB>
!RC = !argus.tile<16x8xf32, register, #FragC>
// GFX: error: 'argus.mma' op instruction mma.m16n8k16.f32.f16 belongs to sm_90, but the kernel is lowered for gfx942; hint: matrix-core instructions are target-specific, write the kernel with an instruction of the target
func.func @mma_other_target()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %a = argus.fill 1.0 : !RA
  %b = argus.fill 1.0 : !RB
  %c = argus.fill 0.0 : !RC
  %d = argus.mma "mma.m16n8k16.f32.f16" %a, %b, %c : !RA, !RB, !RC
  return
}

// -----

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>
func.func @mma_shared_a()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %c = argus.fill 0.0 : !RC
  // expected-error @+1 {{'argus.mma' op lowering of wgmma.m64n128k16.f32.bf16.ss (warpgroup / shared-memory operands) is not implemented yet}}
  %d = argus.mma "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %c : !SA, !SB, !RC
  return
}

// -----

// Two wgmma along M (M = 128 with an m64 instruction on one warpgroup).
#FragA = #argus.frag<"wgmma.m64n64k16.f32.f16", a, warps = [1, 1]>
#FragC = #argus.frag<"wgmma.m64n64k16.f32.f16", c, warps = [1, 1]>
!RA = !argus.tile<128x32xf16, register, #FragA>
!SB = !argus.tile<32x64xf16, shared, "Sw<3,3,3> o (32,64):(64,1)">
!RC = !argus.tile<128x64xf32, register, #FragC>
func.func @wgmma_two_along_m()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %a = argus.fill 1.0 : !RA
  %z = argus.fill 0.0 : !RC
  // expected-error @+1 {{'argus.mma' op wgmma lowering supports one warpgroup (128 threads), A (64 x K) in registers, B (K x N) in shared memory, one instruction along M and N}}
  %d = argus.mma "wgmma.m64n64k16.f32.f16" %a, %b, %z : !RA, !SB, !RC
  return
}

// -----

#FragA = #argus.frag<"wgmma.m64n64k16.f32.f16", a, warps = [1, 1]>
#FragC = #argus.frag<"wgmma.m64n64k16.f32.f16", c, warps = [1, 1]>
!RA = !argus.tile<64x32xf16, register, #FragA>
!SB = !argus.tile<32x64xf16, shared, "(32,64):(64,1)">
!RC = !argus.tile<64x64xf32, register, #FragC>
func.func @wgmma_b_not_swizzled()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %a = argus.fill 1.0 : !RA
  %z = argus.fill 0.0 : !RC
  // expected-error @+1 {{'argus.mma' op wgmma lowering needs B in a 128-byte-swizzled layout}}
  %d = argus.mma "wgmma.m64n64k16.f32.f16" %a, %b, %z : !RA, !SB, !RC
  return
}

// -----

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "(64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>
func.func @mma_async_a_not_swizzled()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  // expected-error @+1 {{'argus.mma_async' op wgmma lowering needs A in shared memory in the 128-byte-swizzled K-major layout}}
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %z : !SA, !SB, !RC
  return
}

// -----

// GFX: error: 'argus.mma_async' op mma_async lowers wgmma instructions on sm_90a only, got wgmma.m64n128k16.f32.bf16.ss for gfx942; hint: use argus.mma for other instructions
#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>
func.func @mma_async_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %z : !SA, !SB, !RC
  argus.wgmma_commit
  %r = argus.wgmma_wait 0, %acc : !RC
  return
}

// -----

// Two wgmma along N (N = 256 with an n128 instruction).
#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!SB = !argus.tile<64x256xbf16, shared, "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))">
!RC = !argus.tile<64x256xf32, register, #FragC>
func.func @mma_async_shape()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  // expected-error @+1 {{'argus.mma_async' op mma_async lowering supports one wgmma per warpgroup: a [W, 1] warp grid, A 64 x K with M = 64 W, B K x 128, K a multiple of 16; hint: split larger tiles into several mma_async ops}}
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %z : !SA, !SB, !RC
  return
}

// -----

// GFX: error: 'argus.wgmma_commit' op wgmma groups exist on sm_90a only
func.func @wgmma_commit_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  argus.wgmma_commit
  return
}

// -----

// GFX: error: 'argus.wgmma_wait' op wgmma groups exist on sm_90a only
!R = !argus.tile<64x2xf32, register, "(64,2):(1,64)">
func.func @wgmma_wait_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %z = argus.fill 0.0 : !R
  %r = argus.wgmma_wait 0, %z : !R
  return
}

// -----

!R = !argus.tile<64x2xf16, register, "(64,2):(1,64)">
func.func @wgmma_wait_f16()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %z = argus.fill 0.0 : !R
  // expected-error @+1 {{'argus.wgmma_wait' op waits for '!argus.tile<64x2xf16, register, "(64,2):(1,64)">', but only f32 accumulators are tied through the wait}}
  %r = argus.wgmma_wait 0, %z : !R
  return
}

//===----------------------------------------------------------------------===//
// mbarriers, TMA, warp roles (MBarrierLowering.cpp, TmaLowering.cpp,
// RoleLowering.cpp)
//===----------------------------------------------------------------------===//

// -----

func.func @mbarrier_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  // expected-error @+1 {{'argus.mbarrier.alloc' op mbarriers exist on NVIDIA sm_90 only, the kernel is lowered for gfx942; hint: lower it with --argus-to-nvptx}}
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  return
}

// -----

func.func @tensor_map_gfx942(%A: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  // expected-error @+1 {{'argus.tensor_map' op tensor maps need an NVIDIA sm_90 kernel outlined by argus-to-gpu (the kernel is lowered for gfx942); hint: lower it with --argus-to-nvptx}}
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  return
}

// -----

// GFX: error: 'argus.role' op sets a register budget, which only sm_90a has (setmaxnreg); hint: drop `regs` when lowering for gfx942
func.func @role_regs_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  argus.role "producer" warps 0 to 4 regs 40 {
  }
  argus.role "consumer" warps 4 to 8 regs 232 {
  }
  return
}
