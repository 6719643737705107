//===- KernelStructure.h - the shape of an argus kernel ---------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A read-only summary of a kernel: its launch shape, shared buffers, the
// tensors it views, the tree of measured regions, its matrix-core ops and its
// tag assertions. Printed by --argus-print-structure.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_ANALYSIS_KERNELSTRUCTURE_H
#define ARGUS_ANALYSIS_KERNELSTRUCTURE_H

#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::argus {

class KernelStructure {
public:
  struct Region {
    std::string name;
    int64_t id;
    Location loc;
    unsigned loopDepth;
    std::vector<std::unique_ptr<Region>> children;
  };
  struct Buffer {
    std::string name;
    BufferType type;
  };
  struct Mma {
    std::string instr;
    Location loc;
    unsigned loopDepth;
  };
  struct Assertion {
    std::string predicate;
    std::string siteOp;
    Location loc;
  };

  explicit KernelStructure(FunctionOpInterface fn);

  void print(llvm::raw_ostream &os) const;

  FunctionOpInterface getFunction() const { return fn; }
  KernelAttr getKernel() const { return kernel; }
  llvm::ArrayRef<std::unique_ptr<Region>> getRegions() const {
    return regions;
  }
  llvm::ArrayRef<Buffer> getBuffers() const { return buffers; }
  llvm::ArrayRef<std::string> getTensors() const { return tensors; }
  llvm::ArrayRef<Mma> getMmas() const { return mmas; }
  llvm::ArrayRef<Assertion> getAssertions() const { return assertions; }

private:
  FunctionOpInterface fn;
  KernelAttr kernel;
  std::vector<std::unique_ptr<Region>> regions;
  std::vector<Buffer> buffers;
  std::vector<std::string> tensors;
  std::vector<Mma> mmas;
  std::vector<Assertion> assertions;
};

} // namespace mlir::argus

#endif // ARGUS_ANALYSIS_KERNELSTRUCTURE_H
