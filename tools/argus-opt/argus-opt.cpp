//===- argus-opt.cpp - the argus optimizer and verifier driver ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// mlir-opt with the argus dialect, its passes and the upstream dialects
// argus kernels are written with.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/Passes.h"
#include "argus/Dialect/ArgusDialect.h"
#include "argus/Transforms/Passes.h"
#include "argus/Verify/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::argus::ArgusDialect, mlir::affine::AffineDialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect>();
  mlir::registerTransformsPasses();
  mlir::argus::registerArgusAnalysisPasses();
  mlir::argus::registerArgusVerifyPasses();
  mlir::argus::registerArgusLoweringDialects(registry);
  mlir::argus::registerArgusPasses();
  mlir::argus::registerArgusPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Argus optimizer and verifier\n", registry));
}
