// RUN: argus-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{argument 0: 'argus.access' must be "in", "out" or "inout", got "readonly"}}
func.func @bad_role(%X: memref<512xf32> {argus.access = "readonly"})
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  return
}

// -----

// expected-error @+1 {{argument 0: 'argus.access' declares the role of a tensor (memref) argument, not of 'index'}}
func.func @role_of_an_index(%N: index {argus.access = "in"})
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  return
}

// -----

// The three roles parse and verify.
func.func @roles(%X: memref<512xf32> {argus.access = "in"}, %Y: memref<512xf32> {argus.access = "out"}, %Z: memref<512xf32> {argus.access = "inout"})
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  return
}
