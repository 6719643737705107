//===- DumpBinary.cpp - write gpu.binary objects to files -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The last step of --argus-to-nvptx / --argus-to-gfx942 with dump=: the
// objects of every gpu.binary go to `path`, `path.1`, `path.2`, ..., and the
// kernels' launch ABI to `path.json`.
//
//===----------------------------------------------------------------------===//

#include "argus/Target/LoweredModule.h"
#include "argus/Target/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSDUMPBINARY
#include "argus/Target/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

namespace {

struct ArgusDumpBinaryPass
    : public ::mlir::argus::impl::ArgusDumpBinaryBase<ArgusDumpBinaryPass> {
  using ArgusDumpBinaryBase::ArgusDumpBinaryBase;
  void runOnOperation() override {
    if (path.empty())
      return;
    ModuleOp top = getOperation();
    std::vector<LoweredObject> objects = loweredObjects(top);
    for (auto [index, obj] : llvm::enumerate(objects)) {
      std::string file =
          index == 0 ? path.getValue() : path + "." + std::to_string(index);
      if (failed(writeFile(file, obj.bytes)))
        return signalPassFailure();
    }
    // `path.json`: the launch ABI of each kernel (#argus.kernel_launch).
    std::vector<std::pair<std::string, KernelLaunchAttr>> abi = launchABI(top);
    if (abi.empty())
      return;
    llvm::json::Object kernels;
    for (auto &[name, launch] : abi)
      kernels[name] = launchToJSON(launch);
    std::string text;
    llvm::raw_string_ostream(text)
        << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                      {"kernels", std::move(kernels)}}))
        << "\n";
    if (failed(writeFile(path + ".json", text)))
      signalPassFailure();
  }

  LogicalResult writeFile(const std::string &file, StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec, llvm::sys::fs::OF_None);
    if (ec)
      return getOperation().emitError() << "argus-dump-binary: cannot write '"
                                        << file << "': " << ec.message();
    os << bytes;
    // Checked here: an error left on the stream (a full disk shows only
    // when the buffer is written) ends the process in its destructor.
    os.close();
    if (os.has_error()) {
      std::error_code err = os.error();
      os.clear_error();
      return getOperation().emitError()
             << "argus-dump-binary: error writing '" << file
             << "': " << err.message()
             << "; hint: check the disk has space and dump= names a "
                "writable file";
    }
    return success();
  }
};

} // namespace
