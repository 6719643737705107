// RUN: argus-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{the innermost box dimension moves 256 bytes, more than the 128-byte swizzle span}}
func.func private @box_wider_than_swizzle(!argus.tensor_map<64x128xbf16, swizzle = 128>)

// -----

// expected-error @+1 {{TMA needs a multiple of 16}}
func.func private @box_not_16_bytes(!argus.tensor_map<64x4xbf16, swizzle = 0>)

// -----

// expected-error @+1 {{tensor map swizzle must be 0, 32, 64 or 128}}
func.func private @bad_swizzle(!argus.tensor_map<64x64xbf16, swizzle = 96>)

// -----

// expected-error @+1 {{tensor map box dimensions must be in [1, 256]}}
func.func private @box_too_big(!argus.tensor_map<512x8xbf16, swizzle = 0>)

// -----

// expected-error @+1 {{an mbarrier ring has 1 to 16 stages, got 0}}
func.func private @empty_ring(!argus.mbarrier<0>)

// -----

func.func @map_not_argument(%A: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %v = memref.subview %A[0, 0] [64, 64] [1, 1] : memref<?x?xbf16> to memref<64x64xbf16, strided<[?, 1]>>
  // expected-error @+1 {{the host encodes tensor maps from kernel arguments; 'A' must describe one}}
  %m = argus.tensor_map "A" %v : memref<64x64xbf16, strided<[?, 1]>> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  return
}

// -----

func.func @map_element(%A: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{tensor 'A' holds 'f16' elements but the map moves 'bf16'}}
  %m = argus.tensor_map "A" %A : memref<?x?xf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  return
}

// -----

func.func @map_in_loop(%A: memref<?x?xbf16>, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{a tensor map must be at the top level of an argus kernel, not inside 'scf.for'}}
    %m = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  }
  return
}

// -----

!S = !argus.tile<64x64xbf16, shared, "(64,64):(64,1)">
func.func @placement(%A: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  %buf = argus.alloc "sA" : !argus.buffer<1 x !S>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%i, %i] : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  // expected-error @+1 {{puts element (1, 0) at byte 128 but the TMA copy (box 64x64, swizzle 128) writes it at byte 144}}
  argus.tma_load %g, %s, %map, %bar[%c0] : !argus.tile<64x64xbf16, global>, !S, !argus.tensor_map<64x64xbf16, swizzle = 128>, !argus.mbarrier<1>
  return
}

// -----

// A bulk tensor copy clips at its tensor map only: a view with bounds
// cannot be its global tile.
!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
func.func @tma_bounded_view(%A: memref<?x?xbf16>, %i: index, %end: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  %buf = argus.alloc "sA" : !argus.buffer<1 x !S>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%i, %i] clipped to [%end, %end] : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  // expected-error @+1 {{the global tile is clipped to bounds, but a bulk tensor copy clips at its tensor map's extent only; hint: copy it with argus.copy / argus.store, or drop the bounds}}
  argus.tma_load %g, %s, %map, %bar[%c0] : !argus.tile<64x64xbf16, global>, !S, !argus.tensor_map<64x64xbf16, swizzle = 128>, !argus.mbarrier<1>
  return
}

// -----

!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
func.func @wrong_tensor(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  %buf = argus.alloc "sA" : !argus.buffer<1 x !S>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "B" %B[%i, %i] : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  // expected-error @+1 {{the global tile views 'B' but the tensor map describes 'A'}}
  argus.tma_load %g, %s, %map, %bar[%c0] : !argus.tile<64x64xbf16, global>, !S, !argus.tensor_map<64x64xbf16, swizzle = 128>, !argus.mbarrier<1>
  return
}

// -----

!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
func.func @not_a_grid_of_boxes(%A: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<48x64xbf16, swizzle = 128>
  %buf = argus.alloc "sA" : !argus.buffer<1 x !S>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%i, %i] : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  // expected-error @+1 {{the 64x64 tile is not a grid of 48x64 tensor-map boxes}}
  argus.tma_load %g, %s, %map, %bar[%c0] : !argus.tile<64x64xbf16, global>, !S, !argus.tensor_map<48x64xbf16, swizzle = 128>, !argus.mbarrier<1>
  return
}

// -----

func.func @barrier_stage(%n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c4 = arith.constant 4 : index
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<4>
  // expected-error @+1 {{stage 4 is out of range for a ring of 4 mbarriers}}
  argus.mbarrier.arrive %bar[%c4] : !argus.mbarrier<4>
  return
}

// -----

func.func @parity(%n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<4>
  // expected-error @+1 {{parity must be 0 or 1, got 2}}
  argus.mbarrier.wait %bar[%c0], %c2 : !argus.mbarrier<4>
  return
}

// -----

func.func @tx_bytes(%n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<4>
  // expected-error @+1 {{an mbarrier phase counts at most 2^20 - 1 transaction bytes, got 1048576}}
  argus.mbarrier.arrive_expect_tx %bar[%c0], 1048576 : !argus.mbarrier<4>
  return
}

// -----

func.func @alloc_in_role()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  argus.role "producer" warps 0 to 4 {
    // expected-error @+1 {{an mbarrier ring must be at the top level of an argus kernel, not inside 'argus.role'}}
    %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<4>
  }
  return
}

// -----

func.func @role_range()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{warps 2 to 6 are not a non-empty range of the block's 4 warps}}
  argus.role "consumer" warps 2 to 6 {
  }
  return
}

// -----

func.func @role_overlap()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  // expected-error @+1 {{warps 0 to 5 overlap those of role 'consumer' (4 to 8)}}
  argus.role "producer" warps 0 to 5 {
  }
  argus.role "consumer" warps 4 to 8 {
  }
  return
}

// -----

func.func @role_regs_not_warpgroup()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  // expected-error @+1 {{a register budget is set per warpgroup}}
  argus.role "producer" warps 0 to 1 regs 40 {
  }
  return
}

// -----

func.func @role_regs_value()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  // expected-error @+1 {{setmaxnreg takes a multiple of 8 in [24, 256], got 42}}
  argus.role "producer" warps 0 to 4 regs 42 {
  }
  return
}

// -----

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [2, 1]>
!SA = !argus.tile<128x64xbf16, shared, "Sw<3,3,3> o (128,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<128x128xf32, register, #FragC>
func.func @wgmma_role_threads(%sa: !SA, %sb: !SB)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  // expected-note @+1 {{the role is declared here}}
  argus.role "consumer" warps 4 to 8 {
    // expected-error @+1 {{spans 256 threads but the warp role 'consumer' has 128}}
    %z = argus.fill 0.0 : !RC
  }
  return
}

// -----

#FragC = #argus.frag<"mma.m16n8k16.f32.bf16", c, warps = [4, 1]>
!RA = !argus.tile<64x16xbf16, register, #argus.frag<"mma.m16n8k16.f32.bf16", a, warps = [4, 1]>>
!RB = !argus.tile<16x8xbf16, register, #argus.frag<"mma.m16n8k16.f32.bf16", b, warps = [4, 1]>>
!RC = !argus.tile<64x8xf32, register, #FragC>
func.func @mma_async_not_wgmma(%a: !RA, %b: !RB, %c: !RC)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{'mma.m16n8k16.f32.bf16' is not a wgmma instruction}}
  %r = argus.mma_async "mma.m16n8k16.f32.bf16" %a, %b, %c : !RA, !RB, !RC
  return
}

// -----

!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!M = !argus.tensor_map<64x64xbf16, swizzle = 128>
func.func @tma_store_wrong_direction(%C: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "C" %C : memref<?x?xbf16> -> !M
  %buf = argus.alloc "sC" : !argus.buffer<2 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<2 x !S>
  %t = argus.stage %buf[%c0] : !argus.buffer<2 x !S>
  // expected-error @+1 {{copies a shared tile into a global tile, got shared -> shared}}
  argus.tma_store %s, %t, %map : !S, !S, !M
  return
}

// -----

!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!M = !argus.tensor_map<64x64xbf16, swizzle = 128>
func.func @tma_store_shape(%C: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "C" %C : memref<?x?xbf16> -> !M
  %buf = argus.alloc "sC" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "C" %C[%i, %i] : memref<?x?xbf16> -> !argus.tile<64x128xbf16, global>
  // expected-error @+1 {{shape mismatch: source is 64x64 but dest is 64x128}}
  argus.tma_store %s, %g, %map : !S, !argus.tile<64x128xbf16, global>, !M
  return
}

// -----

!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!M = !argus.tensor_map<64x64xbf16, swizzle = 128>
func.func @tma_store_other_tensor(%C: memref<?x?xbf16>, %D: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "C" %C : memref<?x?xbf16> -> !M
  %buf = argus.alloc "sC" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "D" %D[%i, %i] : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  // expected-error @+1 {{the global tile views 'D' but the tensor map describes 'C'}}
  argus.tma_store %s, %g, %map : !S, !argus.tile<64x64xbf16, global>, !M
  return
}

// -----

!S = !argus.tile<64x64xbf16, shared, "(64,64):(64,1)">
!M = !argus.tensor_map<64x64xbf16, swizzle = 128>
func.func @tma_store_unswizzled_source(%C: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "C" %C : memref<?x?xbf16> -> !M
  %buf = argus.alloc "sC" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "C" %C[%i, %i] : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  // expected-error @+1 {{but the TMA copy (box 64x64, swizzle 128)}}
  argus.tma_store %s, %g, %map : !S, !argus.tile<64x64xbf16, global>, !M
  return
}

// -----

func.func @tma_store_wait_negative()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  argus.tma_store_wait -1
  return
}

// -----

func.func @named_barrier_slot_out_of_range()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{named barrier slot 8 is out of range; slots are 0-7 (hardware barriers 8-15)}}
  argus.named_barrier.sync %c8, 256
  return
}

// -----

func.func @named_barrier_partial_warp()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a named barrier counts whole warps (a multiple of 32, at most 1024 threads), got 100}}
  argus.named_barrier.arrive %c0, 100
  return
}

// -----

// expected-error @+2 {{thread-block clusters need NVIDIA sm_90, the kernel targets gfx942}}
func.func @cluster_on_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942", cluster = [2]>} {
  return
}

// -----

// expected-error @+2 {{a cluster of 16 blocks is larger than the portable limit of 8}}
func.func @cluster_too_big()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a", cluster = [4, 4]>} {
  return
}

// -----

// expected-error @+2 {{cluster dimensions must be positive, got [0]}}
func.func @cluster_zero()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a", cluster = [0]>} {
  return
}

// -----

!TBm = !argus.tensor_map<64x64xbf16, swizzle = 128>
!SBm = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!GBm = !argus.tile<64x64xbf16, global>
func.func @multicast_without_cluster(%B: memref<?x?xbf16>, %k: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "B" %B : memref<?x?xbf16> -> !TBm
  %buf = argus.alloc "sB" : !argus.buffer<1 x !SBm>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !SBm>
  %g = argus.view "B" %B[%k, %k] : memref<?x?xbf16> -> !GBm
  // expected-error @+1 {{a multicast bulk copy needs a kernel with a thread-block cluster of several blocks; hint: add `cluster = [2]`}}
  argus.tma_load %g, %s, %map, %full[%c0] multicast : !GBm, !SBm, !TBm, !argus.mbarrier<1>
  return
}

// -----

func.func @cluster_arrive_without_cluster(%s: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a", cluster = [1, 1, 1]>} {
  %empty = argus.mbarrier.alloc "empty" arrivals 128 : !argus.mbarrier<2>
  // expected-error @+1 {{an arrival on every block's barrier needs a kernel with a thread-block cluster of several blocks}}
  argus.mbarrier.arrive %empty[%s] cluster : !argus.mbarrier<2>
  return
}
