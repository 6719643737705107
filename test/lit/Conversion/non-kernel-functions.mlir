// Argus ops in a function that is not a kernel, next to a kernel (issue 54:
// argus.alloc crashed AllocLowering in SymbolTable::getSymbolName and an
// elementwise op crashed getKernelInfo, through --argus-to-gpu,
// --argus-to-nvptx and --argus-to-gfx942). The op verifiers accept argus ops
// in any function; the lowering stops at the first one of each function
// that is not a kernel, with its location, the function and a hint.

// RUN: argus-opt %s -split-input-file -verify-diagnostics --argus-to-gpu -o /dev/null
// RUN: not argus-opt %s -split-input-file --argus-to-nvptx -o /dev/null 2>&1 | FileCheck %s
// RUN: not argus-opt %s -split-input-file --argus-to-gfx942 -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: argus-to-gpu: 'argus.alloc' is in function 'helper_alloc', which is not an argus kernel
// CHECK: note: the function is declared here
// CHECK: error: argus-to-gpu: 'argus.exp' is in function 'helper_exp', which is not an argus kernel
// CHECK: error: argus-to-gpu: 'argus.fill' is in function 'only_helper', which is not an argus kernel
// CHECK-NOT: PLEASE submit a bug report
// CHECK-NOT: LLVM ERROR

!S = !argus.tile<64x32xf16, shared, "(64,32):(32,1)">
func.func @kernel(%A: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %s = argus.alloc "S" : !argus.buffer<1 x !S>
  return
}

// expected-note @+1 {{the function is declared here}}
func.func @helper_alloc() {
  // expected-error @+1 {{argus-to-gpu: 'argus.alloc' is in function 'helper_alloc', which is not an argus kernel; argus ops are lowered only inside kernels; hint: mark the function with attributes}}
  %s = argus.alloc "S" : !argus.buffer<1 x !S>
  // One error per function.
  %t = argus.alloc "T" : !argus.buffer<1 x !S>
  return
}

// -----

!R = !argus.tile<128x4xf32, register, "(128,4):(1,128)">
func.func @kernel(%r: !R)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %e = argus.exp %r : !R
  return
}

// expected-note @+1 {{the function is declared here}}
func.func @helper_exp(%r: !R) -> !R {
  // expected-error @+1 {{'argus.exp' is in function 'helper_exp', which is not an argus kernel}}
  %e = argus.exp %r : !R
  return %e : !R
}

// -----

// No kernel at all: the argus ops would stay in the output unlowered.
!R = !argus.tile<128x4xf32, register, "(128,4):(1,128)">
// expected-note @+1 {{the function is declared here}}
func.func @only_helper() {
  // expected-error @+1 {{'argus.fill' is in function 'only_helper', which is not an argus kernel}}
  %f = argus.fill 0.0 : !R
  return
}
