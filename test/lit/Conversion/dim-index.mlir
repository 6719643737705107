// RUN: argus-opt %s --argus-to-gpu -split-input-file -verify-diagnostics

// memref.dim with a negative constant index passes memref's verifier; the
// lowering stops with a located error instead of crashing in MLIR's
// canonicalization of the outlined kernel (found by the long fuzz run).
func.func @negative_dim(%A: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %cm1 = arith.constant -1 : index
  // expected-error @+1 {{memref.dim index -1 is outside the rank 2 of its memref (hint: dimensions count from 0)}}
  %d = memref.dim %A, %cm1 : memref<?x?xf32>
  return
}
