// RUN: argus-opt %s -split-input-file --argus-to-gpu -verify-diagnostics -o /dev/null

// A 256x256 f32 accumulator in 128 threads is 512 registers per thread: more
// than the 255 a thread has on sm_90a. A warning (the backend would spill),
// at the op where the most is live, with the tiles as notes.
!R = !argus.tile<256x256xf32, register, "(128,512):(1,128)">
!G = !argus.tile<256x256xf32, global>
func.func @huge_accumulator(%C: memref<256x256xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %g = argus.view "C" %C[%c0, %c0] : memref<256x256xf32> -> !G
  // expected-warning @+2 {{the register tiles live here need at least 512 32-bit registers per thread, more than the 255 a thread has on sm_90a}}
  // expected-note @+1 {{512 registers per thread for this tile}}
  %z = argus.load %g : !G -> !R
  %y = argus.add %z, %z : !R
  argus.store %y, %g : !R, !G
  return
}

// -----

// The same tile on gfx942 (256 threads, 256 registers each): within its 512
// (VGPRs and AGPRs); no diagnostic.
!R = !argus.tile<256x256xf32, register, "(256,256):(1,256)">
!G = !argus.tile<256x256xf32, global>
func.func @fits_gfx942(%C: memref<256x256xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%c0, %c0] : memref<256x256xf32> -> !G
  argus.store %z, %g : !R, !G
  return
}

// -----

// A tag names the registers of the tile it tags (128, not 256), but inside
// a warp role with `regs` the role's setmaxnreg budget is the limit.
!R = !argus.tile<128x128xf32, register, "(128,128):(1,128)">
!G = !argus.tile<128x128xf32, global>
func.func @role_budget(%C: memref<128x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  argus.role "small" warps 0 to 4 regs 120 {
    %g = argus.view "C" %C[%c0, %c0] : memref<128x128xf32> -> !G
    // expected-warning @+2 {{the register tiles live here need at least 128 32-bit registers per thread, more than the 120 that the warp role's setmaxnreg gives a thread on sm_90a}}
    // expected-note @+1 {{128 registers per thread for this tile}}
    %z = argus.load %g : !G -> !R
    %t = argus.tag %z [%c0] ["m"] = affine_map<(d0, d1)[s0] -> (d0 + s0)> : !R
    argus.store %t, %g : !R, !G
  }
  argus.role "big" warps 4 to 8 regs 200 {
    %g = argus.view "C" %C[%c0, %c0] : memref<128x128xf32> -> !G
    %z = argus.load %g : !G -> !R
    %t = argus.tag %z [%c0] ["m"] = affine_map<(d0, d1)[s0] -> (d0 + s0)> : !R
    argus.store %t, %g : !R, !G
  }
  return
}

// -----

// An elementwise op computes its result element by element, freeing each
// operand register that dies there as it goes (the need is the larger of
// what is live into and out of the op, not both), and a broadcast is its
// source's registers: 128 + 2 at the multiply, within a role's 200.
!R = !argus.tile<128x128xf32, register, "(128,128):(1,128)">
!Rows = !argus.tile<128xf32, register, "(128,1):(1,0)">
!G = !argus.tile<128x128xf32, global>
!GR = !argus.tile<128xf32, global>
func.func @elementwise_in_place(%C: memref<128x128xf32>, %w: memref<128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  argus.role "all" warps 0 to 4 regs 200 {
    %gc = argus.view "C" %C[%c0, %c0] : memref<128x128xf32> -> !G
    %x = argus.load %gc : !G -> !R
    %gw = argus.view "w" %w[%c0] : memref<128xf32> -> !GR
    %r = argus.load %gw : !GR -> !Rows
    %b = argus.broadcast %r dim 1 : !Rows -> !R
    %y = argus.mul %x, %b : !R
    argus.store %y, %gc : !R, !G
  }
  return
}

// -----

// Constant tiles (iotas, fills and a compare of two iotas: a causal mask)
// are folded into their uses and hold no registers: a 128-register tile,
// its mask and a -inf fill stay within a role's 200.
!R = !argus.tile<128x128xf32, register, "(128,128):(1,128)">
!RI = !argus.tile<128x128xi32, register, "(128,128):(1,128)">
!RM = !argus.tile<128x128xi1, register, "(128,128):(1,128)">
!G = !argus.tile<128x128xf32, global>
func.func @constant_mask(%C: memref<128x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  argus.role "consumer" warps 0 to 4 regs 200 {
    %g = argus.view "C" %C[%c0, %c0] : memref<128x128xf32> -> !G
    %x = argus.load %g : !G -> !R
    %qi = argus.iota dim 0 : !RI
    %ki = argus.iota dim 1 : !RI
    %keep = argus.cmp ge %qi, %ki : !RI -> !RM
    %ninf = argus.fill 0xFFF0000000000000 : !R
    %m = argus.select %keep, %x, %ninf : !RM, !R
    argus.store %m, %g : !R, !G
  }
  argus.role "idle" warps 4 to 8 regs 40 {
  }
  return
}
