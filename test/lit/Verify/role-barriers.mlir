// Barriers inside warp roles synchronise the role's threads only. A read
// in a role of what the kernel's top level wrote before the roles split is
// ordered only by a block-wide barrier, or by the role's barrier when the
// writing thread belongs to the role; and the writer's thread is counted
// from the block's first thread, the reader's from the role's (role-local
// thread t is block thread 128 + t here, not block thread t). Before, both
// reads below were proved.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: not argus-opt %t/nobar.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not argus-opt %t/rolebar.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: argus-opt %t/blockbar.mlir --argus-verify-tags -o /dev/null
// RUN: not argus-opt %t/inrole_nobar.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: argus-opt %t/inrole_bar.mlir --argus-verify-tags -o /dev/null

// RACE: error: unsynchronized-read violated at 'argus.load'
// RACE: note: any block, thread {{[0-9]+}} of role 'c' (block thread {{[0-9]+}}, warp {{[4-7]}}, lane
// RACE: note: {{.*}}the latest writer is not synchronised with this read

//--- nobar.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<128x8xf32, global>
!S = !argus.tile<128x8xf32, shared, "(128,8):(8,1)">
!R = !argus.tile<128x8xf32, register, "(128,8):(8,1)">
func.func @nobar(%X: memref<128x8xf32>, %Y: memref<128x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %gx = argus.view "X" %X[%c0, %c0] : memref<128x8xf32> -> !G
  %gxt = argus.tag %gx [%c0, %c0] ["m", "n"] = #Coord : !G
  argus.copy %gxt, %s threads "(128,8):(8,1)" : !G, !S
  argus.role "c" warps 4 to 8 {
    
    %r = argus.load %s : !S -> !R
    %gy = argus.view "Y" %Y[%c0, %c0] : memref<128x8xf32> -> !G
    %gyt = argus.tag %gy [%c0, %c0] ["m", "n"] = #Coord : !G
    argus.store %r, %gyt : !R, !G
    argus.tag_assert "value.m == dest.m && value.n == dest.n"
  }
  return
}

//--- rolebar.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<128x8xf32, global>
!S = !argus.tile<128x8xf32, shared, "(128,8):(8,1)">
!R = !argus.tile<128x8xf32, register, "(128,8):(8,1)">
func.func @rolebar(%X: memref<128x8xf32>, %Y: memref<128x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %gx = argus.view "X" %X[%c0, %c0] : memref<128x8xf32> -> !G
  %gxt = argus.tag %gx [%c0, %c0] ["m", "n"] = #Coord : !G
  argus.copy %gxt, %s threads "(128,8):(8,1)" : !G, !S
  argus.role "c" warps 4 to 8 {
    argus.barrier
    %r = argus.load %s : !S -> !R
    %gy = argus.view "Y" %Y[%c0, %c0] : memref<128x8xf32> -> !G
    %gyt = argus.tag %gy [%c0, %c0] ["m", "n"] = #Coord : !G
    argus.store %r, %gyt : !R, !G
    argus.tag_assert "value.m == dest.m && value.n == dest.n"
  }
  return
}

//--- blockbar.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<128x8xf32, global>
!S = !argus.tile<128x8xf32, shared, "(128,8):(8,1)">
!R = !argus.tile<128x8xf32, register, "(128,8):(8,1)">
func.func @blockbar(%X: memref<128x8xf32>, %Y: memref<128x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %gx = argus.view "X" %X[%c0, %c0] : memref<128x8xf32> -> !G
  %gxt = argus.tag %gx [%c0, %c0] ["m", "n"] = #Coord : !G
  argus.copy %gxt, %s threads "(128,8):(8,1)" : !G, !S
  argus.barrier
  argus.role "c" warps 4 to 8 {
    argus.barrier
    %r = argus.load %s : !S -> !R
    %gy = argus.view "Y" %Y[%c0, %c0] : memref<128x8xf32> -> !G
    %gyt = argus.tag %gy [%c0, %c0] ["m", "n"] = #Coord : !G
    argus.store %r, %gyt : !R, !G
    argus.tag_assert "value.m == dest.m && value.n == dest.n"
  }
  return
}

//--- inrole_nobar.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<128x8xf32, global>
!S = !argus.tile<128x8xf32, shared, "(128,8):(8,1)">
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
func.func @inrole_nobar(%X: memref<128x8xf32>, %Y: memref<128x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  argus.role "c" warps 4 to 8 {
    %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
    %gx = argus.view "X" %X[%c0, %c0] : memref<128x8xf32> -> !G
    %gxt = argus.tag %gx [%c0, %c0] ["m", "n"] = #Coord : !G
    argus.copy %gxt, %s threads "(128,8):(8,1)" : !G, !S
    
    %r = argus.load %s : !S -> !R
    %gy = argus.view "Y" %Y[%c0, %c0] : memref<128x8xf32> -> !G
    %gyt = argus.tag %gy [%c0, %c0] ["m", "n"] = #Coord : !G
    argus.store %r, %gyt : !R, !G
    argus.tag_assert "value.m == dest.m && value.n == dest.n"
  }
  return
}

//--- inrole_bar.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<128x8xf32, global>
!S = !argus.tile<128x8xf32, shared, "(128,8):(8,1)">
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
func.func @inrole_bar(%X: memref<128x8xf32>, %Y: memref<128x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  argus.role "c" warps 4 to 8 {
    %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
    %gx = argus.view "X" %X[%c0, %c0] : memref<128x8xf32> -> !G
    %gxt = argus.tag %gx [%c0, %c0] ["m", "n"] = #Coord : !G
    argus.copy %gxt, %s threads "(128,8):(8,1)" : !G, !S
    argus.barrier
    %r = argus.load %s : !S -> !R
    %gy = argus.view "Y" %Y[%c0, %c0] : memref<128x8xf32> -> !G
    %gyt = argus.tag %gy [%c0, %c0] ["m", "n"] = #Coord : !G
    argus.store %r, %gyt : !R, !G
    argus.tag_assert "value.m == dest.m && value.n == dest.n"
  }
  return
}

