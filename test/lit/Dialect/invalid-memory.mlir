// RUN: argus-opt %s -split-input-file -verify-diagnostics

func.func @view_space(%A: memref<?x?xf16>, %i: index) {
  // expected-error @+1 {{views are global tiles, got a shared tile}}
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf16> -> !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @view_rank(%A: memref<?xf16>, %i: index) {
  // expected-error @+1 {{tensor of rank 1 cannot be viewed as a rank-2 tile}}
  %v = argus.view "A" %A[%i, %i] : memref<?xf16> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @view_offsets(%A: memref<?x?xf16>, %i: index) {
  // expected-error @+1 {{has 1 offsets for a rank-2 tile (one per dimension)}}
  %v = argus.view "A" %A[%i] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @view_element(%A: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{tensor holds 'f32' but the tile holds 'f16'}}
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf32> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @view_too_big(%A: memref<8x?xf16>, %i: index) {
  // expected-error @+1 {{tile dimension 0 (16) is larger than the tensor's (8); hint: a boundary tile is a 'clipped' view}}
  %v = argus.view "A" %A[%i, %i] : memref<8x?xf16> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @gather_indices(%A: memref<?x?xf16>, %i: index, %ids: !argus.tile<16xf32, register, "(64,16):(0,1)">) {
  // expected-error @+1 {{row indices must be a 1-D integer tile}}
  %g = argus.gather_view "A" %A[%ids, %i] : memref<?x?xf16>, !argus.tile<16xf32, register, "(64,16):(0,1)"> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @gather_rows(%A: memref<?x?xf16>, %i: index, %ids: !argus.tile<8xi32, register, "(64,8):(0,1)">) {
  // expected-error @+1 {{gathers 16 rows but has 8 row indices}}
  %g = argus.gather_view "A" %A[%ids, %i] : memref<?x?xf16>, !argus.tile<8xi32, register, "(64,8):(0,1)"> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @alloc_name() {
  // expected-error @+1 {{shared buffers need a non-empty name}}
  %b = argus.alloc "" : !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>
  return
}

// -----

func.func @stage_range() {
  %c2 = arith.constant 2 : index
  %b = argus.alloc "s" : !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>
  // expected-error @+1 {{stage 2 is out of range for a buffer of 2 stages}}
  %s = argus.stage %b[%c2] : !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>
  return
}

// -----

func.func @load_shape(%s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{shape mismatch: source is 16x16 but result is 16x8}}
  %r = argus.load %s : !argus.tile<16x16xf16, shared, "(16,16):(16,1)"> -> !argus.tile<16x8xf16, register, "(64,2):(2,1)">
  return
}

// -----

func.func @load_element(%s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{element type mismatch: source holds 'f16' but result holds 'f32'; hint: use argus.convert first}}
  %r = argus.load %s : !argus.tile<16x16xf16, shared, "(16,16):(16,1)"> -> !argus.tile<16x16xf32, register, "(64,4):(4,1)">
  return
}

// -----

func.func @load_from_register(%s: !argus.tile<16x16xf16, register, "(64,4):(4,1)">) {
  // expected-error @+1 {{operand #0 must be global or shared argus tile}}
  %r = argus.load %s : !argus.tile<16x16xf16, register, "(64,4):(4,1)"> -> !argus.tile<16x16xf16, register, "(64,4):(4,1)">
  return
}

// -----

func.func @store_shape(%r: !argus.tile<16x8xf16, register, "(64,2):(2,1)">, %s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{shape mismatch: value is 16x8 but destination is 16x16}}
  argus.store %r, %s : !argus.tile<16x8xf16, register, "(64,2):(2,1)">, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @copy_overlap(%g: !argus.tile<16x16xf16, global>, %s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{copy thread layout "(64,4):(2,1)" must map (thread, slot) one-to-one onto the 256 elements of the 16x16 tile (it has 256 points reaching [0, 130))}}
  argus.copy %g, %s threads "(64,4):(2,1)" : !argus.tile<16x16xf16, global>, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @copy_rank(%g: !argus.tile<16x16xf16, global>, %s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{copy thread layout "256:1" must have two modes (thread, slot)}}
  argus.copy %g, %s threads "256:1" : !argus.tile<16x16xf16, global>, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @copy_threads(%g: !argus.tile<16x16xf16, global>, %s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  // expected-error @+1 {{copy thread layout uses 128 threads but the kernel block has 64}}
  argus.copy %g, %s threads "(128,2):(2,1)" : !argus.tile<16x16xf16, global>, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @copy_async_spaces(%g: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">, %s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{asynchronous copies go from global to shared memory, got shared to shared}}
  argus.copy_async %g, %s threads "(64,4):(4,1)" : !argus.tile<16x16xf16, shared, "(16,16):(16,1)">, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @copy_bad_layout(%g: !argus.tile<16x16xf16, global>, %s: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{invalid layout "(64,4):(4,1"}}
  argus.copy %g, %s threads "(64,4):(4,1" : !argus.tile<16x16xf16, global>, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @transpose_shape(%s: !argus.tile<16x8xf16, shared, "(16,8):(8,1)">) {
  // expected-error @+1 {{transposes a 2-D tile: 16x8 cannot become 16x8}}
  %t = argus.transpose %s : !argus.tile<16x8xf16, shared, "(16,8):(8,1)"> -> !argus.tile<16x8xf16, shared, "(16,8):(8,1)">
  return
}

// -----

func.func @transpose_layout(%s: !argus.tile<16x8xf16, shared, "(16,8):(8,1)">) {
  // expected-error @+1 {{result layout must be the input's with its modes swapped: expected "(8,16):(1,8)", got "(8,16):(16,1)"}}
  %t = argus.transpose %s : !argus.tile<16x8xf16, shared, "(16,8):(8,1)"> -> !argus.tile<8x16xf16, shared, "(8,16):(16,1)">
  return
}

// -----

func.func @reinterpret_global(%s: !argus.tile<16x8xf16, global>) {
  // expected-error @+1 {{reinterprets shared-memory tiles only}}
  %t = argus.reinterpret %s : !argus.tile<16x8xf16, global> -> !argus.tile<16x8xf16, global>
  return
}

// -----

func.func @transpose_space(%s: !argus.tile<16x8xf16, shared, "(16,8):(8,1)">) {
  // expected-error @+1 {{transpose keeps element type and memory space}}
  %t = argus.transpose %s : !argus.tile<16x8xf16, shared, "(16,8):(8,1)"> -> !argus.tile<8x16xf32, shared, "(8,16):(1,8)">
  return
}

// -----

func.func @transpose_layouts(%s: !argus.tile<16x8xf16, global>) {
  // expected-error @+1 {{input and result must both have layouts or both have none}}
  %t = argus.transpose %s : !argus.tile<16x8xf16, global> -> !argus.tile<8x16xf16, global, "(8,16):(1,8)">
  return
}

// -----

func.func @transpose_rank(%s: !argus.tile<16x8xf16, global, "128:1">) {
  // expected-error @+1 {{input layout must have two modes}}
  %t = argus.transpose %s : !argus.tile<16x8xf16, global, "128:1"> -> !argus.tile<8x16xf16, global, "(8,16):(1,8)">
  return
}

// -----

func.func @atomic_shared(%r: !argus.tile<16x16xf32, register, "(64,4):(4,1)">, %s: !argus.tile<16x16xf32, shared, "(16,16):(16,1)">) {
  // expected-error @+1 {{atomic add needs a global destination, not shared memory; hint: combine the block's values in registers (argus.reduce)}}
  argus.store %r, %s atomic add : !argus.tile<16x16xf32, register, "(64,4):(4,1)">, !argus.tile<16x16xf32, shared, "(16,16):(16,1)">
  return
}

// -----

func.func @atomic_half(%A: memref<?x?xf16>, %i: index, %r: !argus.tile<16x16xf16, register, "(64,4):(4,1)">) {
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  // expected-error @+1 {{atomic add accumulates i32, i64, f32 or f64, not 'f16'; hint: argus.convert the value and use a tensor of f32}}
  argus.store %r, %v atomic add : !argus.tile<16x16xf16, register, "(64,4):(4,1)">, !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @atomic_float_max(%A: memref<?x?xf32>, %i: index, %r: !argus.tile<16x16xf32, register, "(64,4):(4,1)">) {
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf32> -> !argus.tile<16x16xf32, global>
  // expected-error @+1 {{atomic max accumulates signed i32 or i64, not 'f32'; hint: reduce floats in registers}}
  argus.store %r, %v atomic max : !argus.tile<16x16xf32, register, "(64,4):(4,1)">, !argus.tile<16x16xf32, global>
  return
}

// -----

func.func @atomic_kind(%A: memref<?x?xf32>, %i: index, %r: !argus.tile<16x16xf32, register, "(64,4):(4,1)">) {
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf32> -> !argus.tile<16x16xf32, global>
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'atomic' [add, max, min]}}
  argus.store %r, %v atomic mul : !argus.tile<16x16xf32, register, "(64,4):(4,1)">, !argus.tile<16x16xf32, global>
  return
}

// -----

func.func @load_other_type(%A: memref<?x?xf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %v = argus.view "A" %A[%i, %i] clipped : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  // expected-error @+1 {{other 1.000000e+00 : f32 must be a constant of the tile's element type 'f16'}}
  %r = argus.load %v other 1.0 : f32 : !argus.tile<16x16xf16, global> -> !argus.tile<16x16xf16, register, "(64,4):(4,1)">
  return
}

// -----

func.func @load_other_unclipped(%A: memref<?x?xf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  // expected-error @+1 {{other fills the elements of a clipped view outside the tensor, but the source is not a clipped argus.view}}
  %r = argus.load %v other 0.0 : f16 : !argus.tile<16x16xf16, global> -> !argus.tile<16x16xf16, register, "(64,4):(4,1)">
  return
}

// -----

func.func @view_bounds_unclipped(%A: memref<?x?xf16>, %i: index) {
  // expected-error @+1 {{bounds clip a view, but the view is not 'clipped'; hint: write 'clipped to [...]'}}
  %v = argus.view "A" %A[%i, %i] to [%i, %i] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @view_bounds_count(%A: memref<?x?xf16>, %i: index) {
  // expected-error @+1 {{has 1 bounds for a rank-2 tile (one per dimension)}}
  %v = argus.view "A" %A[%i, %i] clipped to [%i] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  return
}

// -----

func.func @im2col_rank(%X: memref<?x?x?xf16>, %i: index) {
  // expected-error @+1 {{a 2-D window convolves a channels-last tensor of rank 4 (N, H, W, C), got rank 3}}
  %v = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1, 1] pad [1, 1] dilation [1, 1] : memref<?x?x?xf16> -> !argus.tile<64x32xf16, global>
  return
}

// -----

func.func @im2col_tile_rank(%X: memref<?x?x?x?xf16>, %i: index) {
  // expected-error @+1 {{im2col views are 2-D tiles}}
  %v = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1, 1] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf16> -> !argus.tile<64xf16, global>
  return
}

// -----

func.func @im2col_params(%X: memref<?x?x?x?xf16>, %i: index) {
  // expected-error @+1 {{has 1 stride values for a 2-D window (one per dimension)}}
  %v = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf16> -> !argus.tile<64x32xf16, global>
  return
}

// -----

func.func @im2col_stride_zero(%X: memref<?x?x?x?xf16>, %i: index) {
  // expected-error @+1 {{stride values must be in [1, 4096], got 0}}
  %v = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1, 0] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf16> -> !argus.tile<64x32xf16, global>
  return
}

// -----

func.func @im2col_element(%X: memref<?x?x?x?xf32>, %i: index) {
  // expected-error @+1 {{tensor holds 'f32' but the tile holds 'f16'}}
  %v = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1, 1] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf32> -> !argus.tile<64x32xf16, global>
  return
}

// -----

func.func @im2col_written(%X: memref<?x?x?x?xf16>, %i: index) {
  %s = argus.alloc "s" : !argus.buffer<1 x !argus.tile<64x32xf16, shared, "(64,32):(32,1)">>
  %t = argus.stage %s[%i] : !argus.buffer<1 x !argus.tile<64x32xf16, shared, "(64,32):(32,1)">>
  // expected-error @+1 {{is read-only, but argus.copy uses it as operand 1}}
  %v = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1, 1] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf16> -> !argus.tile<64x32xf16, global>
  // expected-note @+1 {{the use}}
  argus.copy %t, %v threads "(128,16):(1,128)" : !argus.tile<64x32xf16, shared, "(64,32):(32,1)">, !argus.tile<64x32xf16, global>
  return
}

// -----

func.func @assume_indices_2d(%ids: memref<?x?xi32>, %n: index) {
  // expected-error @+1 {{'argus.assume_indices' op expects a 1-D tensor of integers (row indices), got 'memref<?x?xi32>'}}
  argus.assume_indices %ids below %n, "rows" : memref<?x?xi32>
  return
}

// -----

func.func @assume_indices_float(%ids: memref<?xf32>, %n: index) {
  // expected-error @+1 {{expects a 1-D tensor of integers}}
  argus.assume_indices %ids below %n, "rows" : memref<?xf32>
  return
}

// -----

func.func @assume_indices_not_argument(%n: index) {
  %ids = memref.alloc(%n) : memref<?xi32>
  // expected-error @+1 {{declares the entries of a kernel argument; the tensor here is not one}}
  argus.assume_indices %ids below %n distinct, "rows" : memref<?xi32>
  return
}

// -----

func.func @assume_indices_in_loop(%ids: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{states a kernel precondition and must be at the top level of the kernel body, not inside 'scf.for'}}
    argus.assume_indices %ids below %n, "rows" : memref<?xi32>
  }
  return
}
