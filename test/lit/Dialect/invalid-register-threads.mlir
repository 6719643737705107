// RUN: argus-opt %s -split-input-file -verify-diagnostics

// A register tile whose (thread, slot) layout spans more threads than the
// kernel's block is an error at every op that produces or consumes it
// (issue 13: a 256-thread layout in a 128-thread kernel used to pass the op
// verifiers and the tag verifier, and half the tile was never stored).

!G = !argus.tile<256x4xf32, global>
!R = !argus.tile<256x4xf32, register, "(256,4):(1,256)">
// expected-note @+1 {{the kernel's block is declared here}}
func.func @load_too_many_threads(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  // expected-error @+1 {{'argus.load' op result #0 is a register tile whose layout spans 256 threads but the kernel block has 128}}
  %r = argus.load %x : !G -> !R
  return
}

// -----

!R = !argus.tile<256x4xf32, register, "(256,4):(1,256)">
// expected-note @+1 {{the kernel's block is declared here}}
func.func @fill_too_many_threads()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{'argus.fill' op result #0 is a register tile whose layout spans 256 threads}}
  %r = argus.fill 0.0 : !R
  return
}

// -----

!G = !argus.tile<256x4xf32, global>
!R = !argus.tile<256x4xf32, register, "(256,4):(1,256)">
// expected-note @+1 {{the kernel's block is declared here}}
func.func @store_too_many_threads(%r: !R, %X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  // expected-error @+1 {{'argus.store' op operand #0 is a register tile whose layout spans 256 threads but the kernel block has 128}}
  argus.store %r, %x : !R, !G
  return
}

// -----

// Elementwise ops (no verifier of their own) check too.
!R = !argus.tile<256x4xf32, register, "(256,4):(1,256)">
// expected-note @+1 {{the kernel's block is declared here}}
func.func @exp_too_many_threads(%r: !R)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{'argus.exp' op operand #0 is a register tile whose layout spans 256 threads}}
  %e = argus.exp %r : !R
  return
}

// -----

// Fragment layouts: 2x2 warps of 64-lane MFMA are 256 threads.
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
!RC = !argus.tile<128x128xf32, register, #C>
// expected-note @+1 {{the kernel's block is declared here}}
func.func @frag_too_many_threads()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  // expected-error @+1 {{'argus.fill' op result #0 is a register tile whose layout spans 256 threads but the kernel block has 128}}
  %r = argus.fill 0.0 : !RC
  return
}

// -----

#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
// expected-note @+1 {{the kernel's block is declared here}}
func.func @mma_too_many_threads(%a: !argus.tile<128x32xf16, register, #A>, %b: !argus.tile<32x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  // expected-error @+1 {{'argus.mma' op operand #0 is a register tile whose layout spans 256 threads}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xf16, register, #A>, !argus.tile<32x128xf16, register, #B>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

// The reduction result (64 rows over 256 threads) does not fit either.
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!Rows = !argus.tile<64xf32, register, "((64,4),1):((1,0),0)">
// expected-note @+1 {{the kernel's block is declared here}}
func.func @reduce_result_too_many_threads(%r: !R)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{'argus.reduce' op result #0 is a register tile whose layout spans 256 threads}}
  %m = argus.reduce max %r dim 1 : !R -> !Rows
  return
}

// -----

// As many threads as the block, or fewer, is fine; outside a kernel there is
// no block to compare with.
!R128 = !argus.tile<128x4xf32, register, "(128,4):(1,128)">
!R64 = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!R256 = !argus.tile<256x4xf32, register, "(256,4):(1,256)">
func.func @fits(%a: !R128, %b: !R64) -> (!R128, !R64)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %x = argus.exp %a : !R128
  %y = argus.neg %b : !R64
  return %x, %y : !R128, !R64
}
func.func @not_a_kernel(%a: !R256) -> !R256 {
  %x = argus.exp %a : !R256
  return %x : !R256
}
