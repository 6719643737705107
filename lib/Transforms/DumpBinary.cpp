//===- DumpBinary.cpp - write gpu.binary objects to files -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The last step of --argus-to-nvptx / --argus-to-gfx942 with dump=: the
// objects of every gpu.binary go to `path`, `path.1`, `path.2`, ...
//
//===----------------------------------------------------------------------===//

#include "argus/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSDUMPBINARY
#include "argus/Transforms/Passes.h.inc"
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
    int index = 0;
    WalkResult r = getOperation().walk([&](gpu::BinaryOp bin) {
      for (Attribute a : bin.getObjects()) {
        auto obj = cast<gpu::ObjectAttr>(a);
        std::string file =
            index == 0 ? path.getValue() : path + "." + std::to_string(index);
        ++index;
        std::error_code ec;
        llvm::raw_fd_ostream os(file, ec, llvm::sys::fs::OF_None);
        if (ec) {
          bin.emitError() << "argus-dump-binary: cannot write '" << file
                          << "': " << ec.message();
          return WalkResult::interrupt();
        }
        os << obj.getObject().getValue();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
