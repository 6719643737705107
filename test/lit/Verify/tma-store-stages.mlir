// A bulk copy kernel (TMA load into a 2-stage ring, TMA store out of it):
// a bulk store that reads a stage the bulk copies fill is ordered like any
// other reader of it. It must follow the wait for the slot it reads
// (async-read-order) and the stage may be released only after the store's
// group has read it (stage-release: tma_store_wait before the arrive).
// Before, a release ahead of the wait was proved and a missing wait was
// only unknown.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: argus-opt %t/ok.mlir --argus-verify-tags="report=%t/ok.json" -o /dev/null
// RUN: %python -c "import json, collections; c = collections.Counter((x['kind'], x['status']) for x in json.load(open('%t/ok.json'))['checks']); [print(k, s, n) for (k, s), n in sorted(c.items())]" | FileCheck %s --check-prefix=OK
// RUN: not argus-opt %t/nowait.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWAIT
// RUN: not argus-opt %t/early.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=EARLY

// OK: assert proved 1
// OK-NEXT: assumptions proved 1
// OK-NEXT: async-read-order proved 1
// OK: stage-release proved 1
// OK: tma-store-drained proved 1
// OK-NOT: violated
// OK-NOT: unknown

// NOWAIT: error: async-read-order violated at 'argus.tma_store'
// NOWAIT: note: {{.*}}no wait on 'full' precedes the read of s stage

// EARLY: error: stage-release violated at 'argus.mbarrier.arrive'
// EARLY: note: {{.*}}'argus.tma_store'{{.*}}has not retired{{.*}}hint: argus.tma_store_wait

//--- ok.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<64x64xbf16, global>
!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!T = !argus.tensor_map<64x64xbf16, swizzle = 128>
!Ring = !argus.mbarrier<2>

func.func @tma_copy(%X: memref<?x?xbf16>, %Y: memref<?x?xbf16>, %M: index, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %x0 = memref.dim %X, %c0 : memref<?x?xbf16>
  %x1 = memref.dim %X, %c1 : memref<?x?xbf16>
  %y0 = memref.dim %Y, %c0 : memref<?x?xbf16>
  %y1 = memref.dim %Y, %c1 : memref<?x?xbf16>
  %ex0 = arith.cmpi eq, %x0, %M : index
  %ex1 = arith.cmpi eq, %x1, %N : index
  %ey0 = arith.cmpi eq, %y0, %M : index
  %ey1 = arith.cmpi eq, %y1, %N : index
  %ex = arith.andi %ex0, %ex1 : i1
  %ey = arith.andi %ey0, %ey1 : i1
  %exy = arith.andi %ex, %ey : i1
  argus.assume %exy, "X and Y are M x N"
  %nr = arith.remui %N, %c8 : index
  %n8 = arith.cmpi eq, %nr, %c0 : index
  argus.assume %n8, "N is a multiple of 8 (16-byte rows for TMA)"
  %tiles_n = arith.ceildivui %N, %c64 : index
  %tiles_m = arith.ceildivui %M, %c64 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %cap = arith.constant 4194304 : index
  %small = arith.cmpi ult, %tiles, %cap : index
  argus.assume %small, "fewer than 2^22 tiles"
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %tmX = argus.tensor_map "X" %X : memref<?x?xbf16> -> !T
  %tmY = argus.tensor_map "Y" %Y : memref<?x?xbf16> -> !T
  %buf = argus.alloc "s" : !argus.buffer<2 x !S>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !Ring
  %empty = argus.mbarrier.alloc "empty" arrivals 128 : !Ring
  argus.role "producer" warps 0 to 4 {
    %p = scf.for %t = %bid to %tiles step %grid iter_args(%i = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c64 : index
      %n0 = arith.muli %tn, %c64 : index
      %s = arith.remui %i, %c2 : index
      %round = arith.divui %i, %c2 : index
      %phase = arith.remui %round, %c2 : index
      %free = arith.subi %c1, %phase : index
      argus.mbarrier.wait %empty[%s], %free : !Ring
      argus.mbarrier.arrive_expect_tx %full[%s], 8192 : !Ring
      %gx = argus.view "X" %X[%m0, %n0] clipped : memref<?x?xbf16> -> !G
      %gxt = argus.tag %gx [%m0, %n0] ["m", "n"] = #Coord : !G
      %ss = argus.stage %buf[%s] : !argus.buffer<2 x !S>
      argus.tma_load %gxt, %ss, %tmX, %full[%s] : !G, !S, !T, !Ring
      %i1 = arith.addi %i, %c1 : index
      scf.yield %i1 : index
    }
  }
  argus.role "consumer" warps 4 to 8 {
    %q = scf.for %t = %bid to %tiles step %grid iter_args(%i = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c64 : index
      %n0 = arith.muli %tn, %c64 : index
      %s = arith.remui %i, %c2 : index
      %round = arith.divui %i, %c2 : index
      %phase = arith.remui %round, %c2 : index
      argus.mbarrier.wait %full[%s], %phase : !Ring
      %ss = argus.stage %buf[%s] : !argus.buffer<2 x !S>
      %gy = argus.view "Y" %Y[%m0, %n0] clipped : memref<?x?xbf16> -> !G
      %gyt = argus.tag %gy [%m0, %n0] ["m", "n"] = #Coord : !G
      argus.tma_store %ss, %gyt, %tmY : !S, !G, !T
      argus.tag_assert "source.m == dest.m && source.n == dest.n"
      argus.tma_store_wait 0
      argus.mbarrier.arrive %empty[%s] : !Ring
      %i1 = arith.addi %i, %c1 : index
      scf.yield %i1 : index
    }
    argus.tma_store_wait 0
  }
  return
}

//--- nowait.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<64x64xbf16, global>
!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!T = !argus.tensor_map<64x64xbf16, swizzle = 128>
!Ring = !argus.mbarrier<2>

func.func @tma_copy_no_wait(%X: memref<?x?xbf16>, %Y: memref<?x?xbf16>, %M: index, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %x0 = memref.dim %X, %c0 : memref<?x?xbf16>
  %x1 = memref.dim %X, %c1 : memref<?x?xbf16>
  %y0 = memref.dim %Y, %c0 : memref<?x?xbf16>
  %y1 = memref.dim %Y, %c1 : memref<?x?xbf16>
  %ex0 = arith.cmpi eq, %x0, %M : index
  %ex1 = arith.cmpi eq, %x1, %N : index
  %ey0 = arith.cmpi eq, %y0, %M : index
  %ey1 = arith.cmpi eq, %y1, %N : index
  %ex = arith.andi %ex0, %ex1 : i1
  %ey = arith.andi %ey0, %ey1 : i1
  %exy = arith.andi %ex, %ey : i1
  argus.assume %exy, "X and Y are M x N"
  %nr = arith.remui %N, %c8 : index
  %n8 = arith.cmpi eq, %nr, %c0 : index
  argus.assume %n8, "N is a multiple of 8 (16-byte rows for TMA)"
  %tiles_n = arith.ceildivui %N, %c64 : index
  %tiles_m = arith.ceildivui %M, %c64 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %cap = arith.constant 4194304 : index
  %small = arith.cmpi ult, %tiles, %cap : index
  argus.assume %small, "fewer than 2^22 tiles"
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %tmX = argus.tensor_map "X" %X : memref<?x?xbf16> -> !T
  %tmY = argus.tensor_map "Y" %Y : memref<?x?xbf16> -> !T
  %buf = argus.alloc "s" : !argus.buffer<2 x !S>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !Ring
  %empty = argus.mbarrier.alloc "empty" arrivals 128 : !Ring
  argus.role "producer" warps 0 to 4 {
    %p = scf.for %t = %bid to %tiles step %grid iter_args(%i = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c64 : index
      %n0 = arith.muli %tn, %c64 : index
      %s = arith.remui %i, %c2 : index
      %round = arith.divui %i, %c2 : index
      %phase = arith.remui %round, %c2 : index
      %free = arith.subi %c1, %phase : index
      argus.mbarrier.wait %empty[%s], %free : !Ring
      argus.mbarrier.arrive_expect_tx %full[%s], 8192 : !Ring
      %gx = argus.view "X" %X[%m0, %n0] clipped : memref<?x?xbf16> -> !G
      %gxt = argus.tag %gx [%m0, %n0] ["m", "n"] = #Coord : !G
      %ss = argus.stage %buf[%s] : !argus.buffer<2 x !S>
      argus.tma_load %gxt, %ss, %tmX, %full[%s] : !G, !S, !T, !Ring
      %i1 = arith.addi %i, %c1 : index
      scf.yield %i1 : index
    }
  }
  argus.role "consumer" warps 4 to 8 {
    %q = scf.for %t = %bid to %tiles step %grid iter_args(%i = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c64 : index
      %n0 = arith.muli %tn, %c64 : index
      %s = arith.remui %i, %c2 : index
      %round = arith.divui %i, %c2 : index
      %phase = arith.remui %round, %c2 : index
      %ss = argus.stage %buf[%s] : !argus.buffer<2 x !S>
      %gy = argus.view "Y" %Y[%m0, %n0] clipped : memref<?x?xbf16> -> !G
      %gyt = argus.tag %gy [%m0, %n0] ["m", "n"] = #Coord : !G
      argus.tma_store %ss, %gyt, %tmY : !S, !G, !T
      argus.tag_assert "source.m == dest.m && source.n == dest.n"
      argus.tma_store_wait 0
      argus.mbarrier.arrive %empty[%s] : !Ring
      %i1 = arith.addi %i, %c1 : index
      scf.yield %i1 : index
    }
    argus.tma_store_wait 0
  }
  return
}

//--- early.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<64x64xbf16, global>
!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!T = !argus.tensor_map<64x64xbf16, swizzle = 128>
!Ring = !argus.mbarrier<2>

func.func @tma_copy_early_release(%X: memref<?x?xbf16>, %Y: memref<?x?xbf16>, %M: index, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %x0 = memref.dim %X, %c0 : memref<?x?xbf16>
  %x1 = memref.dim %X, %c1 : memref<?x?xbf16>
  %y0 = memref.dim %Y, %c0 : memref<?x?xbf16>
  %y1 = memref.dim %Y, %c1 : memref<?x?xbf16>
  %ex0 = arith.cmpi eq, %x0, %M : index
  %ex1 = arith.cmpi eq, %x1, %N : index
  %ey0 = arith.cmpi eq, %y0, %M : index
  %ey1 = arith.cmpi eq, %y1, %N : index
  %ex = arith.andi %ex0, %ex1 : i1
  %ey = arith.andi %ey0, %ey1 : i1
  %exy = arith.andi %ex, %ey : i1
  argus.assume %exy, "X and Y are M x N"
  %nr = arith.remui %N, %c8 : index
  %n8 = arith.cmpi eq, %nr, %c0 : index
  argus.assume %n8, "N is a multiple of 8 (16-byte rows for TMA)"
  %tiles_n = arith.ceildivui %N, %c64 : index
  %tiles_m = arith.ceildivui %M, %c64 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %cap = arith.constant 4194304 : index
  %small = arith.cmpi ult, %tiles, %cap : index
  argus.assume %small, "fewer than 2^22 tiles"
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %tmX = argus.tensor_map "X" %X : memref<?x?xbf16> -> !T
  %tmY = argus.tensor_map "Y" %Y : memref<?x?xbf16> -> !T
  %buf = argus.alloc "s" : !argus.buffer<2 x !S>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !Ring
  %empty = argus.mbarrier.alloc "empty" arrivals 128 : !Ring
  argus.role "producer" warps 0 to 4 {
    %p = scf.for %t = %bid to %tiles step %grid iter_args(%i = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c64 : index
      %n0 = arith.muli %tn, %c64 : index
      %s = arith.remui %i, %c2 : index
      %round = arith.divui %i, %c2 : index
      %phase = arith.remui %round, %c2 : index
      %free = arith.subi %c1, %phase : index
      argus.mbarrier.wait %empty[%s], %free : !Ring
      argus.mbarrier.arrive_expect_tx %full[%s], 8192 : !Ring
      %gx = argus.view "X" %X[%m0, %n0] clipped : memref<?x?xbf16> -> !G
      %gxt = argus.tag %gx [%m0, %n0] ["m", "n"] = #Coord : !G
      %ss = argus.stage %buf[%s] : !argus.buffer<2 x !S>
      argus.tma_load %gxt, %ss, %tmX, %full[%s] : !G, !S, !T, !Ring
      %i1 = arith.addi %i, %c1 : index
      scf.yield %i1 : index
    }
  }
  argus.role "consumer" warps 4 to 8 {
    %q = scf.for %t = %bid to %tiles step %grid iter_args(%i = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c64 : index
      %n0 = arith.muli %tn, %c64 : index
      %s = arith.remui %i, %c2 : index
      %round = arith.divui %i, %c2 : index
      %phase = arith.remui %round, %c2 : index
      argus.mbarrier.wait %full[%s], %phase : !Ring
      %ss = argus.stage %buf[%s] : !argus.buffer<2 x !S>
      %gy = argus.view "Y" %Y[%m0, %n0] clipped : memref<?x?xbf16> -> !G
      %gyt = argus.tag %gy [%m0, %n0] ["m", "n"] = #Coord : !G
      argus.tma_store %ss, %gyt, %tmY : !S, !G, !T
      argus.tag_assert "source.m == dest.m && source.n == dest.n"
      argus.mbarrier.arrive %empty[%s] : !Ring
      argus.tma_store_wait 0
      %i1 = arith.addi %i, %c1 : index
      scf.yield %i1 : index
    }
    argus.tma_store_wait 0
  }
  return
}
