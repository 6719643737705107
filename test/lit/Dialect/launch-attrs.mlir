// The launch ABI attributes print and parse back (argus-to-gpu writes them,
// hosts and later tools read them), and argus.launch takes only kernel
// launch attributes, on a builtin.module (invalid-launch.mlir).

// RUN: argus-opt %s -split-input-file | argus-opt -split-input-file | FileCheck %s

// CHECK-LABEL: module attributes {argus.launch = {k = #argus.kernel_launch<chip = "sm_90a", block = [128, 1, 1], dynamic_smem = 65536, params = [#argus.kernel_param<kind = buffer, arg = 0, dim = -1, type = bf16, written = true>, #argus.kernel_param<kind = size, arg = 0, dim = 0, type = i64, written = false>, #argus.kernel_param<kind = tensor_map, arg = 0, dim = 0, type = bf16, written = false>, #argus.kernel_param<kind = probe_buffer, arg = -1, dim = -1, type = i8, written = true>], tensor_maps = [#argus.tensor_map_param<param = 2, name = "A", arg = 0, box = [64, 64], element = bf16, swizzle = 128, oob_fill = "zero", pass = "value">], probes = <capacity = 64, clock = "globaltimer", regions = {"1" = "main"}, warps = [0], blocks = [], iteration_lo = 0, iteration_hi = -1, warp_size = 32, warps_per_block = 4>>}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "sm_90a",
    block = [128, 1, 1], dynamic_smem = 65536,
    params = [#argus.kernel_param<kind = buffer, arg = 0, dim = -1, type = bf16, written = true>,
              #argus.kernel_param<kind = size, arg = 0, dim = 0, type = i64, written = false>,
              #argus.kernel_param<kind = tensor_map, arg = 0, dim = 0, type = bf16, written = false>,
              #argus.kernel_param<kind = probe_buffer, arg = -1, dim = -1, type = i8, written = true>],
    tensor_maps = [#argus.tensor_map_param<param = 2, name = "A", arg = 0,
                   box = [64, 64], element = bf16, swizzle = 128,
                   oob_fill = "zero", pass = "value">],
    probes = #argus.probe_plan<capacity = 64, clock = "globaltimer",
             regions = {"1" = "main"}, warps = [0], blocks = [],
             iteration_lo = 0, iteration_hi = -1, warp_size = 32, warps_per_block = 4>>}} {
}

// -----

// Without probes the plan is left out.
// CHECK-LABEL: module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = []>}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942",
    block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = []>}} {
}

// -----

// The grid rule round-trips (argus/Analysis/GridRule.h).
// CHECK-LABEL: module attributes {argus.launch = {k = #argus.kernel_launch<chip = "sm_90a", block = [128, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{assume = "M = 64 * grid_dim.x", exact = true, extent = {div = [{size = [0, 0]}, 64]}}, {extent = "free"}, {extent = 1 : i64}]>}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "sm_90a",
    block = [128, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [],
    grid = [{extent = {div = [{size = [0, 0]}, 64]}, assume = "M = 64 * grid_dim.x", exact = true},
            {extent = "free"}, {extent = 1}]>}} {
}

// -----

// Index preconditions (argus.assume_indices) as the host checks them.
// CHECK-LABEL: module attributes {argus.launch = {k = #argus.kernel_launch<chip = "sm_90a", block = [128, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], indices = [{arg = 2 : i64, below = {size = [1, 0]}, distinct = true, message = "ids are distinct rows of Y"}]>}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "sm_90a",
    block = [128, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [],
    indices = [{arg = 2 : i64, distinct = true, message = "ids are distinct rows of Y",
                below = {size = [1, 0]}}]>}} {
}
