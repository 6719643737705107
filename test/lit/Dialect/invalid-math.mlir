// RUN: argus-opt %s -split-input-file -verify-diagnostics

!I = !argus.tile<64x4xi32, register, "(64,4):(1,64)">
func.func @sqrt_int(%x: !I) {
  // expected-error @+1 {{'argus.sqrt' op needs a float tile, got 'i32' elements; hint: argus.convert it first}}
  %0 = argus.sqrt %x : !I
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @splat_type(%v: f16) {
  // expected-error @+1 {{cannot splat a 'f16' onto a tile of 'f32'; hint: the scalar must have the tile's element type}}
  %0 = argus.splat %v : f16 -> !R
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @splat_index_float(%v: index) {
  // expected-error @+1 {{cannot splat a 'index' onto a tile of 'f32'}}
  %0 = argus.splat %v : index -> !R
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!M = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @cmp_result_not_mask(%x: !R) {
  // expected-error @+1 {{result #0 must be register argus tile of i1 (a mask)}}
  %0 = argus.cmp lt %x, %x : !R -> !M
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!M = !argus.tile<64x4xi1, register, "(4,64):(64,1)">
func.func @cmp_layout(%x: !R) {
  // expected-error @+1 {{layout mismatch: the result and the operands must have the same register layout; hint: use argus.convert_layout}}
  %0 = argus.cmp lt %x, %x : !R -> !M
  return
}

// -----

!M = !argus.tile<64x4xi1, register, "(64,4):(1,64)">
func.func @cmp_mask_order(%m: !M) {
  // expected-error @+1 {{masks (i1 tiles) compare with eq or ne only}}
  %0 = argus.cmp lt %m, %m : !M -> !M
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @select_float_mask(%x: !R) {
  // expected-error @+1 {{the mask must be an i1 tile (argus.cmp makes one), got 'f32' elements}}
  %0 = argus.select %x, %x, %x : !R, !R
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!M = !argus.tile<32x8xi1, register, "(64,4):(1,64)">
func.func @select_shape(%m: !M, %x: !R) {
  // expected-error @+1 {{shape mismatch: the mask is 32x8 and the values 64x4}}
  %0 = argus.select %m, %x, %x : !M, !R
  return
}

// -----

!F = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @iota_float() {
  // expected-error @+1 {{gives coordinates, so its tile holds integers (i32 or i64), not 'f32'; hint: argus.convert the result to a float}}
  %0 = argus.iota dim 1 : !F
  return
}

// -----

!I = !argus.tile<64x4xi32, register, "(64,4):(1,64)">
func.func @iota_dim() {
  // expected-error @+1 {{dimension 2 is out of range for a rank-2 tile}}
  %0 = argus.iota dim 2 : !I
  return
}

// -----

!I = !argus.tile<256x4xi8, register, "(256,4):(1,256)">
func.func @iota_narrow() {
  // expected-error @+1 {{coordinates up to 255 do not fit in 'i8'}}
  %0 = argus.iota dim 0 : !I
  return
}

// -----

// Elementwise operands and results share one type; the generic form can
// break that, and the error says what differs.
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!S = !argus.tile<32x8xf32, register, "(32,8):(1,32)">
func.func @add_shapes(%x: !R, %y: !S) {
  // expected-error @+1 {{'argus.add' op shape mismatch: lhs is 64x4 but rhs is 32x8}}
  %0 = "argus.add"(%x, %y) : (!R, !S) -> !R
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!H = !argus.tile<64x4xf16, register, "(64,4):(1,64)">
func.func @mul_element_types(%x: !R, %y: !H) {
  // expected-error @+1 {{'argus.mul' op element type mismatch: lhs holds 'f32' but rhs holds 'f16'; hint: use argus.convert first}}
  %0 = "argus.mul"(%x, %y) : (!R, !H) -> !R
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!T = !argus.tile<64x4xf32, register, "(4,64):(64,1)">
func.func @exp_result_layout(%x: !R) {
  // expected-error @+1 {{'argus.exp' op layout mismatch: the input is '!argus.tile<64x4xf32, register, "(64,4):(1,64)">' but the result is '!argus.tile<64x4xf32, register, "(4,64):(64,1)">'; hint: use argus.convert_layout}}
  %0 = "argus.exp"(%x) : (!R) -> !T
  return
}

// -----

!I = !argus.tile<64x4xi32, register, "(64,4):(1,64)">
func.func @exp_int(%x: !I) {
  // expected-error @+1 {{'argus.exp' op needs a float tile, got 'i32' elements}}
  %0 = argus.exp %x : !I
  return
}

// -----

!M = !argus.tile<64x4xi1, register, "(64,4):(1,64)">
func.func @relu_mask(%m: !M) {
  // expected-error @+1 {{'argus.relu' op is not defined on masks (i1 tiles)}}
  %0 = argus.relu %m : !M
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!I = !argus.tile<64x4xi32, register, "(64,4):(1,64)">
func.func @cmp_operand_types(%x: !R, %y: !I) {
  // expected-error @+1 {{'argus.cmp' op element type mismatch: lhs holds 'f32' but rhs holds 'i32'}}
  %0 = "argus.cmp"(%x, %y) {predicate = 0 : i32} : (!R, !I) -> !argus.tile<64x4xi1, register, "(64,4):(1,64)">
  return
}

// -----

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!I = !argus.tile<64x4xi32, register, "(64,4):(1,64)">
!M = !argus.tile<64x4xi1, register, "(64,4):(1,64)">
func.func @select_value_types(%m: !M, %x: !R, %y: !I) {
  // expected-error @+1 {{'argus.select' op element type mismatch: lhs holds 'f32' but rhs holds 'i32'}}
  %0 = "argus.select"(%m, %x, %y) : (!M, !R, !I) -> !R
  return
}
