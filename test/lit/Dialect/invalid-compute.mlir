// RUN: argus-opt %s -split-input-file -verify-diagnostics

#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
!A = !argus.tile<128x32xf16, register, #A>
!B = !argus.tile<32x128xf16, register, #B>
!C = !argus.tile<128x128xf32, register, #C>

func.func @mma_unknown(%a: !A, %b: !B, %c: !C) {
  // expected-error @+1 {{unknown matrix-core instruction "v_mfma_f32_32x32x8f16"; hint: did you mean "v_mfma_f32_32x32x8_f16"?}}
  %d = argus.mma "v_mfma_f32_32x32x8f16" %a, %b, %c : !A, !B, !C
  return
}

// -----

#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
func.func @mma_operand_layout(%a: !argus.tile<128x32xf16, register, "(256,16):(16,1)">, %b: !argus.tile<32x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>) {
  // expected-error @+1 {{operand 'a' must have layout #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [...]>}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xf16, register, "(256,16):(16,1)">, !argus.tile<32x128xf16, register, #B>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
func.func @mma_swapped(%a: !argus.tile<128x32xf16, register, #A>, %b: !argus.tile<32x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>) {
  // expected-error @+1 {{operand 'a' must have layout #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [...]>}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %b, %a, %c : !argus.tile<32x128xf16, register, #B>, !argus.tile<128x32xf16, register, #A>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [4, 1]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
func.func @mma_warps(%a: !argus.tile<128x32xf16, register, #A>, %b: !argus.tile<32x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>) {
  // expected-error @+1 {{operand 'b' is spread over warps [2, 2] but an earlier operand over [4, 1]}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xf16, register, #A>, !argus.tile<32x128xf16, register, #B>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
func.func @mma_shapes(%a: !argus.tile<128x32xf16, register, #A>, %b: !argus.tile<64x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>) {
  // expected-error @+1 {{operand shapes do not form a matrix product: a is 128x32, b is 64x128, acc is 128x128; hint: expected MxK, KxN and MxN}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xf16, register, #A>, !argus.tile<64x128xf16, register, #B>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
func.func @mma_element(%a: !argus.tile<128x32xbf16, register, #A>, %b: !argus.tile<32x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>) {
  // expected-error @+1 {{v_mfma_f32_32x32x8_f16 operand 'a' must be 'f16', got 'bf16'; hint: argus.convert it first}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xbf16, register, #A>, !argus.tile<32x128xf16, register, #B>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
func.func @mma_target(%a: !argus.tile<128x32xf16, register, #A>, %b: !argus.tile<32x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  // expected-error @+1 {{v_mfma_f32_32x32x8_f16 is a gfx942 instruction but the kernel targets sm_90a}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xf16, register, #A>, !argus.tile<32x128xf16, register, #B>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

// A warp grid over fewer threads than the block (more threads is an error of
// every op with such a register tile: invalid-register-threads.mlir).
#A = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#B = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#C = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
func.func @mma_threads(%a: !argus.tile<128x32xf16, register, #A>, %b: !argus.tile<32x128xf16, register, #B>, %c: !argus.tile<128x128xf32, register, #C>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  // expected-error @+1 {{warp grid [1, 1] of v_mfma_f32_32x32x8_f16 needs 64 threads but the kernel block has 128}}
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xf16, register, #A>, !argus.tile<32x128xf16, register, #B>, !argus.tile<128x128xf32, register, #C>
  return
}

// -----

#A = #argus.frag<"wgmma.m64n64k16.f32.f16", a, warps = [1, 1]>
#B = #argus.frag<"wgmma.m64n64k16.f32.f16", b, warps = [1, 1]>
#C = #argus.frag<"wgmma.m64n64k16.f32.f16", c, warps = [1, 1]>
func.func @wgmma_b_register(%a: !argus.tile<64x16xf16, register, #A>, %b: !argus.tile<16x64xf16, register, #B>, %c: !argus.tile<64x64xf32, register, #C>) {
  // expected-error @+1 {{wgmma.m64n64k16.f32.f16 reads operand 'b' from shared memory, but it is a register tile}}
  %d = argus.mma "wgmma.m64n64k16.f32.f16" %a, %b, %c : !argus.tile<64x16xf16, register, #A>, !argus.tile<16x64xf16, register, #B>, !argus.tile<64x64xf32, register, #C>
  return
}

// -----

#B = #argus.frag<"mma.m16n8k16.f32.f16", b, warps = [1, 1]>
#C = #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [1, 1]>
func.func @mma_sync_a_shared(%a: !argus.tile<16x16xf16, shared, "(16,16):(16,1)">, %b: !argus.tile<16x8xf16, register, #B>, %c: !argus.tile<16x8xf32, register, #C>) {
  // expected-error @+1 {{operand 'a' of mma.m16n8k16.f32.f16 must be a register tile; hint: argus.load it with a fragment layout}}
  %d = argus.mma "mma.m16n8k16.f32.f16" %a, %b, %c : !argus.tile<16x16xf16, shared, "(16,16):(16,1)">, !argus.tile<16x8xf16, register, #B>, !argus.tile<16x8xf32, register, #C>
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
// expected-note @+1 {{prior use here}}
func.func @binary_types(%x: !T, %y: !argus.tile<64x8xf32, register, "(64,8):(1,64)">) {
  // expected-error @+1 {{use of value '%y' expects different type than prior uses}}
  %0 = argus.add %x, %y : !T
  return
}

// -----

func.func @convert_layout_changes(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{converts element types only: shape and layout must stay the same; hint: use argus.convert_layout to change the layout}}
  %0 = argus.convert %x : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64x8xf16, register, "(64,8):(1,64)">
  return
}

// -----

func.func @convert_layout_shape(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{shape mismatch: input is 64x8 but result is 8x64}}
  %0 = argus.convert_layout %x : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<8x64xf32, register, "(64,8):(8,1)">
  return
}

// -----

func.func @fill_int() {
  // expected-error @+1 {{fill value 5.000000e-01 is not an integer but the tile holds 'i32'}}
  %0 = argus.fill 0.5 : !argus.tile<64xi32, register, "(64,1):(1,0)">
  return
}

// -----

func.func @reduce_dim(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{reduction dimension 2 is out of range for a rank-2 tile}}
  %0 = argus.reduce max %x dim 2 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64xf32, register, "(64,1):(1,0)">
  return
}

// -----

func.func @reduce_shape(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{reducing dimension 0 of 64x8 gives 8, not 64}}
  %0 = argus.reduce sum %x dim 0 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64xf32, register, "(64,1):(1,0)">
  return
}

// -----

func.func @reduce_element(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{reduction keeps the element type 'f32'}}
  %0 = argus.reduce sum %x dim 1 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64xf16, register, "(64,1):(1,0)">
  return
}

// -----

func.func @reduce_kind(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, prod]}}
  %0 = argus.reduce mean %x dim 1 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64xf32, register, "(64,1):(1,0)">
  return
}

// -----

func.func @broadcast_shape(%x: !argus.tile<64xf32, register, "(64,1):(1,0)">) {
  // expected-error @+1 {{broadcast of 64 along dimension 0 cannot give 64x8}}
  %0 = argus.broadcast %x dim 0 : !argus.tile<64xf32, register, "(64,1):(1,0)"> -> !argus.tile<64x8xf32, register, "(64,8):(8,1)">
  return
}

// -----

func.func @broadcast_rank(%x: !argus.tile<64xf32, register, "(64,1):(1,0)">) {
  // expected-error @+1 {{broadcast adds one dimension: 64 cannot become 64 along dimension 0}}
  %0 = argus.broadcast %x dim 0 : !argus.tile<64xf32, register, "(64,1):(1,0)"> -> !argus.tile<64xf32, register, "(64,1):(1,0)">
  return
}

// -----

func.func @scan_dim(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{scan dimension 2 is out of range for a rank-2 tile; hint: dimensions count from 0}}
  %0 = argus.scan sum %x dim 2 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64x8xf32, register, "(64,8):(8,1)">
  return
}

// -----

func.func @scan_type(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{differs from the input type '!argus.tile<64x8xf32, register, "(64,8):(8,1)">'; hint: a scan keeps the shape, element type and layout}}
  %0 = argus.scan sum %x dim 1 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64x8xf16, register, "(64,8):(8,1)">
  return
}

// -----

func.func @scan_layout(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{hint: a scan keeps the shape, element type and layout}}
  %0 = argus.scan max %x dim 1 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64x8xf32, register, "(64,8):(1,64)">
  return
}

// -----

func.func @scan_mask(%x: !argus.tile<64x8xi1, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{cannot scan a mask (i1 tile); hint: argus.select between integer tiles first}}
  %0 = argus.scan sum %x dim 1 : !argus.tile<64x8xi1, register, "(64,8):(8,1)"> -> !argus.tile<64x8xi1, register, "(64,8):(8,1)">
  return
}

// -----

func.func @scan_kind(%x: !argus.tile<64x8xf32, register, "(64,8):(8,1)">) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, prod]}}
  %0 = argus.scan add %x dim 1 : !argus.tile<64x8xf32, register, "(64,8):(8,1)"> -> !argus.tile<64x8xf32, register, "(64,8):(8,1)">
  return
}
