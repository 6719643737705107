//===- DumpBinary.cpp - write gpu.binary objects to files -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The last step of --argus-to-nvptx / --argus-to-gfx942 with dump=: the
// objects of every gpu.binary go to `path`, `path.1`, `path.2`, ...
//
//===----------------------------------------------------------------------===//

#include "argus/Conversion/ArgusToGPU/KernelABI.h"
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
      return signalPassFailure();
    if (failed(writeLaunchFacts()))
      signalPassFailure();
  }

  static llvm::json::Value toJson(Attribute a) {
    if (auto i = dyn_cast<IntegerAttr>(a))
      return i.getInt();
    if (auto s = dyn_cast<StringAttr>(a))
      return s.str();
    if (auto d = dyn_cast<DenseI64ArrayAttr>(a))
      return llvm::json::Array(d.asArrayRef());
    if (auto arr = dyn_cast<ArrayAttr>(a)) {
      llvm::json::Array r;
      for (Attribute e : arr)
        r.push_back(toJson(e));
      return r;
    }
    if (auto d = dyn_cast<DictionaryAttr>(a)) {
      llvm::json::Object o;
      for (NamedAttribute n : d)
        o[n.getName().str()] = toJson(n.getValue());
      return o;
    }
    std::string s;
    llvm::raw_string_ostream(s) << a;
    return s;
  }

  /// `path.json`: the launch facts argus-to-gpu recorded (argus.launch):
  /// dynamic shared memory bytes and the tensor-map parameters per kernel.
  LogicalResult writeLaunchFacts() {
    auto facts = getOperation()->getAttrOfType<DictionaryAttr>(kLaunchAttr);
    if (!facts)
      return success();
    std::string file = path + ".json";
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec, llvm::sys::fs::OF_None);
    if (ec)
      return getOperation().emitError() << "argus-dump-binary: cannot write '"
                                        << file << "': " << ec.message();
    llvm::json::Object kernels;
    for (NamedAttribute n : facts)
      kernels[n.getName().str()] = toJson(n.getValue());
    os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"kernels", std::move(kernels)}}))
       << "\n";
    return success();
  }
};

} // namespace
