// RUN: argus-opt %s -split-input-file -verify-diagnostics
// RUN: argus-opt %s -split-input-file -verify-diagnostics --argus-to-nvptx -o /dev/null

// The register budget of a register tile is the tile type's (issue 54): a
// thread's slots may take at most 2048 32-bit registers (4x the 512 a
// thread has on gfx942). A replicated slot mode with 2^32-1 slots passed
// the op verifiers and ran the lowering out of memory; a 4096x512 f16 tile
// on 128 threads took minutes in compile() before failing. Both fail where
// the type is parsed, before any op or pass walks their slots.

func.func @replicated_slots()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{register tile layout "(128,4294967295):(1,0)" gives each thread 4294967295 slots of f32 (128x1 tile), more than the 2048 32-bit registers per thread a register tile may take (a thread has at most 512: gfx942; 255 on NVIDIA); hint: spread the tile over more threads, split it into smaller tiles or keep it in shared memory}}
  %f = argus.fill 0.0 : !argus.tile<128x1xf32, register, "(128,4294967295):(1,0)">
  return
}

// -----

func.func @big_f16_tile(%X: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf16> -> !argus.tile<4096x512xf16, global>
  // expected-error @+1 {{gives each thread 16384 slots of f16 (4096x512 tile), more than the 2048 32-bit registers}}
  %r = argus.load %x : !argus.tile<4096x512xf16, global> -> !argus.tile<4096x512xf16, register, "(128,16384):(1,128)">
  return
}

// -----

// Outside a kernel too (the type has no kernel to ask).
// expected-error @+1 {{gives each thread 65536 slots of i8}}
func.func @argument(%r: !argus.tile<1x65536xi8, register, "(1,65536):(0,1)">) {
  return
}

// -----

// At the budget: 2048 f32 slots per thread is accepted (the lowering warns
// that it spills).
func.func @at_the_budget()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %f = argus.fill 0.0 : !argus.tile<128x2048xf32, register, "(128,2048):(1,128)">
  return
}

// -----

// Fragments count too: 16 repetitions of a 32x32 MFMA accumulator in each
// direction on one warp is 4096 f32 registers per lane.
func.func @big_fragment()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  // expected-error @+1 {{gives each thread 4096 slots of f32}}
  %f = argus.fill 0.0 : !argus.tile<512x512xf32, register, #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>>
  return
}

// -----

// A fragment of an operand the instruction reads from shared memory (wgmma
// B) names no registers: every thread "sees" the whole tile, and no budget
// applies (4096 slots of f32 here).
func.func @wgmma_b_from_shared()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %f = argus.fill 0.0 : !argus.tile<32x128xf32, register, #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", b, warps = [1, 1]>>
  return
}
