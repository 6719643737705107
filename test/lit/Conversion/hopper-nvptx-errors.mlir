// The located errors of the sm_90a lowering (--argus-to-gpu), one kernel
// each; the conversion then reports the op it could not legalize.

// RUN: argus-opt %s -split-input-file -verify-diagnostics --argus-to-gpu
// A register budget is sm_90a's: lowering such a kernel for gfx942 fails.
// RUN: not argus-opt %s -split-input-file --argus-to-gpu=target=gfx942 -o /dev/null 2>&1 | FileCheck %s --check-prefix=REGS
// REGS: error: 'argus.role' op sets a register budget, which only sm_90a has (setmaxnreg); hint: drop `regs` when lowering for gfx942

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "(64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>
func.func @a_not_swizzled()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  // expected-error @+1 {{wgmma lowering needs A in shared memory in the 128-byte-swizzled K-major layout}}
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %z : !SA, !SB, !RC
  %r = argus.wgmma_wait 0, %acc : !RC
  return
}

// -----

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "(64,128):(128,1)">
!RC = !argus.tile<64x128xf32, register, #FragC>
func.func @b_not_swizzled()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  // expected-error @+1 {{wgmma lowering needs B in a 128-byte-swizzled layout}}
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %z : !SA, !SB, !RC
  %r = argus.wgmma_wait 0, %acc : !RC
  return
}

// -----

func.func @tensor_map_gfx942(%A: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  // expected-error @+1 {{tensor maps need an NVIDIA sm_90 kernel outlined by argus-to-gpu (the kernel is lowered for gfx942); hint: lower it with --argus-to-nvptx}}
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  return
}

// -----

func.func @mbarrier_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  // expected-error @+1 {{mbarriers exist on NVIDIA sm_90 only, the kernel is lowered for gfx942; hint: lower it with --argus-to-nvptx}}
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  return
}

// -----

!R = !argus.tile<64x2xf16, register, "(64,2):(1,64)">
func.func @wait_f16()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %z = argus.fill 0.0 : !R
  // expected-error @+1 {{only f32 accumulators are tied through the wait}}
  %r = argus.wgmma_wait 0, %z : !R
  return
}

// -----

func.func @regs_role()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  argus.role "producer" warps 0 to 4 regs 40 {
  }
  return
}

// -----

// An exchange through the shared scratch synchronises the block: inside a
// role it would deadlock.
!RI = !argus.tile<128x4xf32, register, "(128,4):(1,128)">
!RO = !argus.tile<128x4xf32, register, "(128,4):(4,1)">
func.func @exchange_in_role()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  argus.role "math" warps 4 to 8 {
    %x = argus.fill 1.0 : !RI
    // expected-error @+1 {{needs the shared scratch and block barriers (bar.sync 0), which the other warp roles never reach (deadlock)}}
    %y = argus.convert_layout %x : !RI -> !RO
  }
  return
}

// -----

// wgmma reads 32-bit operands K-major only: an MN-major tf32 B (K x N with N
// contiguous) is refused with the layout it needs.
#FragC11 = #argus.frag<"wgmma.m64n64k8.f32.tf32.ss", c, warps = [1, 1]>
!SA11 = !argus.tile<64x32xf32, shared, "Sw<3,2,3> o (64,32):(32,1)">
!SB11 = !argus.tile<32x64xf32, shared, "Sw<3,2,3> o (32,(32,2)):(32,(1,1024))">
!RC11 = !argus.tile<64x64xf32, register, #FragC11>
func.func @tf32_b_mn_major()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA11>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB11>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA11>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB11>
  %z = argus.fill 0.0 : !RC11
  // expected-error @+1 {{wgmma lowering needs a tf32 B in the 128-byte-swizzled K-major layout}}
  %acc = argus.mma_async "wgmma.m64n64k8.f32.tf32.ss" %a, %b, %z : !SA11, !SB11, !RC11
  %r = argus.wgmma_wait 0, %acc : !RC11
  return
}
