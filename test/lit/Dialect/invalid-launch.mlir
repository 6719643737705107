// RUN: argus-opt %s -split-input-file -verify-diagnostics

// argus.launch maps kernel names to #argus.kernel_launch, on a module.

// expected-error @+1 {{'argus.launch' must be a dictionary of kernel names to #argus.kernel_launch on a builtin.module}}
module attributes {argus.launch = {k = {dynamic_smem = 0}}} {
}

// -----

// expected-error @+1 {{'argus.launch' must be a dictionary of kernel names to #argus.kernel_launch}}
module attributes {argus.launch = [1, 2]} {
}

// -----

// On a function it means nothing.
module {
  // expected-error @+1 {{'argus.launch' must be a dictionary of kernel names to #argus.kernel_launch on a builtin.module}}
  func.func @f() attributes {argus.launch = {}} {
    return
  }
}

// -----

// The grid rule (argus/Analysis/GridRule.h) has one entry per dimension.
// expected-error @+1 {{grid rule must have one entry per dimension x, y, z, got 2}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{extent = 1}, {extent = 1}]>}} {
}

// -----

// expected-error @+1 {{grid rule entry must be a dictionary with an 'extent'}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{extent = 1}, 4, {extent = 1}]>}} {
}

// -----

// expected-error @+1 {{grid extent string must be "free"}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{extent = "any"}, {extent = 1}, {extent = 1}]>}} {
}

// -----

// expected-error @+1 {{unknown grid extent operation 'pow'; hint: use size, arg, add, sub, mul, div, ceildiv or max}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{extent = {pow = [{arg = 0}, 2]}}, {extent = 1}, {extent = 1}]>}} {
}

// -----

// expected-error @+1 {{grid extent 'size' must be [argument, dimension]}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{extent = {ceildiv = [{size = [0, 1, 2]}, 64]}}, {extent = 1}, {extent = 1}]>}} {
}

// -----

// expected-error @+1 {{grid extent constant must not be negative}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{extent = -2}, {extent = 1}, {extent = 1}]>}} {
}

// -----

// expected-error @+1 {{grid extent 'div' takes two operands}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], grid = [{extent = {div = [{arg = 1}]}}, {extent = 1}, {extent = 1}]>}} {
}

// -----

// An index precondition names its argument, distinctness and message.
// expected-error @+1 {{an index precondition is a dictionary with 'arg', 'distinct' and 'message'}}
module attributes {argus.launch = {k = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0, params = [], tensor_maps = [], indices = [{arg = 1 : i64}]>}} {
}
