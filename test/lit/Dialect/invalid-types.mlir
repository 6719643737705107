// RUN: argus-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{tile dimensions must be positive, got 0x4}}
func.func private @zero_dim(!argus.tile<0x4xf32, global>)

// -----

// expected-error @+1 {{unknown memory space 'local'; hint: use 'global', 'shared' or 'register'}}
func.func private @bad_space(!argus.tile<4x4xf32, local>)

// -----

// expected-error @+1 {{register tile 4x4 needs a layout}}
func.func private @reg_no_layout(!argus.tile<4x4xf32, register>)

// -----

// expected-error @+1 {{shared tile 4x4 needs a layout}}
func.func private @shared_no_layout(!argus.tile<4x4xf32, shared>)

// -----

// expected-error @+1 {{tile element type must be an integer or float, got 'vector<4xf32>'}}
func.func private @bad_element(!argus.tile<4x4xvector<4xf32>, global>)

// -----

// expected-error @+1 {{#argus.frag layouts are register layouts, but the tile is in shared memory}}
func.func private @frag_in_shared(!argus.tile<32x8xf16, shared, #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>>)

// -----

// expected-error @+1 {{unknown matrix-core instruction "v_mfma_f32_32x32x9_f16"; hint: did you mean "v_mfma_f32_32x32x8_f16"?}}
func.func private @frag_unknown(!argus.tile<32x8xf16, register, #argus.frag<"v_mfma_f32_32x32x9_f16", a, warps = [1, 1]>>)

// -----

// expected-error @+1 {{tile 48x8 does not fit v_mfma_f32_32x32x8_f16 operand a (32x8) over warps [1, 1]; hint: each dimension must be a multiple of 32x8}}
func.func private @frag_shape(!argus.tile<48x8xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>>)

// -----

// expected-error @+1 {{fragment warp grid must be two positive integers [WM, WN], got [2]}}
func.func private @frag_warps(!argus.tile<32x8xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2]>>)

// -----

// expected-error @+1 {{register tile layout "64:1" must have two modes (thread, slot), got 1}}
func.func private @reg_rank(!argus.tile<8x8xf32, register, "64:1">)

// -----

// expected-error @+1 {{register tile layout "(64,2):(1,64)" reaches logical coordinates [0, 128) but the 8x8 tile has 64 elements}}
func.func private @reg_cosize(!argus.tile<8x8xf32, register, "(64,2):(1,64)">)

// -----

// expected-error @+1 {{register tile layout "(2,2):(1,62)" leaves logical coordinate 2 of the 8x8 tile without a (thread, slot)}}
func.func private @reg_cover(!argus.tile<8x8xf32, register, "(2,2):(1,62)">)

// -----

// expected-error @+1 {{register tile layout "Sw<1,1,1> o (32,2):(2,1)" cannot be swizzled}}
func.func private @reg_swizzle(!argus.tile<8x8xf32, register, "Sw<1,1,1> o (32,2):(2,1)">)

// -----

// expected-error @+1 {{memory tile layout "(8,4):(4,1)" does not match the 8x8 tile; hint: give one mode per tile dimension with the dimension's size}}
func.func private @mem_layout(!argus.tile<8x8xf32, shared, "(8,4):(4,1)">)

// -----

// expected-error @+1 {{invalid layout "(8,8):(8,1"}}
func.func private @bad_layout_text(!argus.tile<8x8xf32, shared, "(8,8):(8,1">)

// -----

// expected-error @+1 {{tile layout must be an #argus.layout or #argus.frag attribute, got 5 : i32}}
func.func private @not_a_layout(!argus.tile<8x8xf32, shared, 5 : i32>)

// -----

// expected-error @+1 {{buffer must have 1 to 16 stages, got 0}}
func.func private @buffer_stages(!argus.buffer<0 x !argus.tile<8x8xf32, shared, "(8,8):(8,1)">>)

// -----

// expected-error @+1 {{buffer tiles must be in shared memory, got global}}
func.func private @buffer_space(!argus.buffer<2 x !argus.tile<8x8xf32, global>>)

// -----

// expected-error @+1 {{kernel block dimensions must be positive, got [0]}}
func.func @kernel_zero() attributes {argus.kernel = #argus.kernel<block = [0], target = "gfx942">} {
  return
}

// -----

// expected-error @+1 {{kernel block [2048] has more than 1024 threads}}
func.func @kernel_big() attributes {argus.kernel = #argus.kernel<block = [2048], target = "gfx942">} {
  return
}

// -----

// expected-error @+1 {{unknown kernel target "gfx1100"; hint: use "gfx942", "sm_90" or "sm_90a"}}
func.func @kernel_target() attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx1100">} {
  return
}

// -----

// expected-error @+1 {{kernel block of 96 threads is not a whole number of 64-thread warps on gfx942}}
func.func @kernel_warps() attributes {argus.kernel = #argus.kernel<block = [96], target = "gfx942">} {
  return
}

// -----

// expected-error @+1 {{'argus.kernel' may only mark a function (func.func or gpu.func), not 'builtin.module'}}
module attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
}

// -----

// expected-error @+1 {{unknown argus attribute 'argus.knl'; hint: the dialect defines only 'argus.kernel'}}
func.func @typo() attributes {argus.knl = 1} {
  return
}

// -----

// expected-error @+1 {{'argus.kernel' must be an #argus.kernel<...> attribute}}
func.func @wrong_attr() attributes {argus.kernel = 1} {
  return
}

// -----

// expected-error @+1 {{kernel block shape must have 1 to 3 dimensions, got 4}}
func.func @kernel_dims() attributes {argus.kernel = #argus.kernel<block = [4, 4, 4, 1], target = "gfx942">} {
  return
}

// -----

// expected-error @+1 {{tile 1048576x1048576x1048576 is too large}}
func.func private @too_large(!argus.tile<1048576x1048576x1048576xf32, global>)
