// The shared memory of a lowered kernel (its buffers, exchange scratch and
// probe counters) is checked against the chip's limit before code
// generation, with the kernel's location and a note per buffer (issue 13: an
// 80 KiB gfx942 kernel reached LLVM's "local memory (81920) exceeds limit
// (65536)", which ended argus-opt and the Python interpreter with exit(1)).
// gfx942: 64 KiB of LDS. sm_90a: 48 KiB of static shared memory; a kernel
// over that moves to dynamic shared memory, up to 227 KiB (232448 bytes;
// hopper-nvptx.mlir checks the move).

// RUN: argus-opt %s -split-input-file -verify-diagnostics --argus-to-gpu
// RUN: not argus-opt %s -split-input-file --argus-to-gfx942 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// PIPE: error: kernel 'lds_80k' needs 81920 bytes of shared memory but a block on gfx942 may use at most 65536 bytes (64 KiB)
// PIPE-NOT: see current operation
// PIPE-NOT: LLVM ERROR
// PIPE-NOT: exceeds limit

!G = !argus.tile<256x160xf16, global>
!S = !argus.tile<256x160xf16, shared, "(256,160):(160,1)">
!R = !argus.tile<256x160xf16, register, "(256,160):(1,256)">
// expected-error @+1 {{kernel 'lds_80k' needs 81920 bytes of shared memory but a block on gfx942 may use at most 65536 bytes (64 KiB); hint: use fewer pipeline stages, smaller tiles or narrower element types}}
func.func @lds_80k(%X: memref<?x?xf16>, %Y: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{81920 bytes of shared memory}}
  %sa = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s = argus.stage %sa[%c0] : !argus.buffer<1 x !S>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf16> -> !G
  argus.copy %x, %s threads "(256,160):(160,1)" : !G, !S
  argus.barrier
  %r = argus.load %s : !S -> !R
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf16> -> !G
  argus.store %r, %y : !R, !G
  return
}

// -----

// Exactly 64 KiB fits gfx942 (two 32 KiB stages).
!G = !argus.tile<256x64xf16, global>
!S = !argus.tile<256x64xf16, shared, "(256,64):(64,1)">
func.func @lds_64k(%X: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sa = argus.alloc "sA" : !argus.buffer<2 x !S>
  %s0 = argus.stage %sa[%c0] : !argus.buffer<2 x !S>
  %s1 = argus.stage %sa[%c1] : !argus.buffer<2 x !S>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf16> -> !G
  argus.copy %x, %s0 threads "(256,64):(1,256)" : !G, !S
  argus.copy %x, %s1 threads "(256,64):(1,256)" : !G, !S
  return
}

// -----

// 240 KiB is over sm_90a's 227 KiB of dynamic shared memory.
!G = !argus.tile<256x240xf16, global>
!S = !argus.tile<256x240xf16, shared, "(256,240):(240,1)">
// expected-error @+1 {{kernel 'smem_240k' needs 245760 bytes of shared memory but a block on sm_90a may use at most 232448 bytes (227 KiB of dynamic shared memory); hint: use fewer pipeline stages}}
func.func @smem_240k(%X: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{245760 bytes of shared memory}}
  %sa = argus.alloc "sA" : !argus.buffer<2 x !S>
  %s0 = argus.stage %sa[%c0] : !argus.buffer<2 x !S>
  %s1 = argus.stage %sa[%c1] : !argus.buffer<2 x !S>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf16> -> !G
  argus.copy %x, %s0 threads "(256,240):(1,256)" : !G, !S
  argus.copy %x, %s1 threads "(256,240):(1,256)" : !G, !S
  return
}
