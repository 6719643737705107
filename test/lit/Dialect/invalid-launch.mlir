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
