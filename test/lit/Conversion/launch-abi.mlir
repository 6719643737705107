// The launch ABI argus-to-gpu records for each kernel on the top module
// (#argus.kernel_launch): every parameter slot in order, with the tensor
// arguments the kernel may write (through a view, a tagged view, a view
// carried by a loop) told apart from those it only reads, and the probe
// plan when probes are lowered. argus-dump-binary writes the same as JSON.

// RUN: argus-opt %s --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx probes=true" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json

#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<16x16xf32, global>
!R = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">

// CHECK-LABEL: module attributes
// CHECK-SAME: argus.launch = {
// CHECK-SAME: copy_loop = #argus.kernel_launch<chip = "sm_90a", block = [64, 1, 1], dynamic_smem = 0, params = [
// CHECK-SAME: #argus.kernel_param<kind = buffer, arg = 0, dim = -1, type = f32, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 0, dim = 0, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 0, dim = 1, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = buffer, arg = 1, dim = -1, type = f32, written = true>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 1, dim = 0, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 1, dim = 1, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = index, arg = 2, dim = -1, type = i64, written = false>], tensor_maps = [], grid = [{extent = 1 : i64}, {extent = 1 : i64}, {extent = 1 : i64}]>
// CHECK-SAME: scatter_rows = #argus.kernel_launch<chip = "sm_90a", block = [64, 1, 1], dynamic_smem = 0, params = [
// CHECK-SAME: #argus.kernel_param<kind = buffer, arg = 0, dim = -1, type = f32, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 0, dim = 0, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 0, dim = 1, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = buffer, arg = 1, dim = -1, type = f32, written = true>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 1, dim = 0, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 1, dim = 1, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = buffer, arg = 2, dim = -1, type = i32, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 2, dim = 0, type = i64, written = false>]
// CHECK-SAME: tagged_store = #argus.kernel_launch<chip = "sm_90a", block = [64, 1, 1], dynamic_smem = 0, params = [
// CHECK-SAME: #argus.kernel_param<kind = buffer, arg = 0, dim = -1, type = f32, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 0, dim = 1, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = buffer, arg = 1, dim = -1, type = f32, written = true>,
// CHECK-SAME: #argus.kernel_param<kind = size, arg = 1, dim = 1, type = i64, written = false>,
// CHECK-SAME: #argus.kernel_param<kind = scalar, arg = 2, dim = -1, type = f32, written = false>], tensor_maps = [], grid = [{extent = 1 : i64}, {extent = 1 : i64}, {extent = 1 : i64}]>

// JSON: "copy_loop": {
// JSON: "block": [
// JSON: "chip": "sm_90a",
// JSON: "dynamic_smem": 0,
// JSON: "params": [
// JSON: "kind": "buffer",
// JSON: "written": false
// JSON: "kind": "buffer",
// JSON: "written": true
// JSON: "probes": {
// JSON: "capacity": 4096,
// JSON: "regions": {
// JSON-NEXT: "1": "body"
// JSON: "warp_size": 32,
// JSON: "warps_per_block": 2
// JSON: "tensor_maps": []

// The destination view is carried by the loop; the source is only read.
func.func @copy_loop(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gy0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%gy = %gy0) -> (!G) {
    argus.region.begin "body" id 1
    %gx = argus.view "X" %X[%i, %c0] : memref<?x?xf32> -> !G
    %x = argus.load %gx : !G -> !R
    argus.store %x, %gy : !R, !G
    argus.region.end id 1
    scf.yield %gy : !G
  }
  return
}

// Rows scattered by an index tensor that is only read: loaded into
// registers and declared by argus.assume_indices (a precondition, which
// reads the tensor's entries and writes nothing).
!GI = !argus.tile<16xi32, global>
!RI = !argus.tile<16xi32, register, "(64,16):(0,1)">
func.func @scatter_rows(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %Y, %c0 : memref<?x?xf32>
  argus.assume_indices %ids below %rows distinct, "ids are distinct rows of Y" : memref<?xi32>
  %gi = argus.view "ids" %ids[%c0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !RI
  %gx = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %x = argus.load %gx : !G -> !R
  %gy = argus.gather_view "Y" %Y[%i, %c0] : memref<?x?xf32>, !RI -> !G
  argus.store %x, %gy : !R, !G
  return
}

// A store through a tagged view of the destination, with a scalar.
func.func @tagged_store(%X: memref<16x16xf32>, %Y: memref<16x16xf32>, %s: f32)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %gx = argus.view "X" %X[%c0, %c0] : memref<16x16xf32> -> !G
  %x = argus.load %gx : !G -> !R
  %gy = argus.view "Y" %Y[%c0, %c0] : memref<16x16xf32> -> !G
  %gyt = argus.tag %gy [%c0, %c0] ["m", "n"] = #Coord : !G
  argus.store %x, %gyt : !R, !G
  return
}
