//===- ModuleToBinary.cpp - guarded gpu.module serialisation --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// gpu-module-to-binary, with the LLVM backend isolated so that it can never
// end the process that called it. LLVM reports some errors by calling
// exit(1) (an error diagnostic on an LLVMContext without a handler, such as
// AMDGPU's "local memory (N) exceeds limit (M)", in a context that MLIR's
// serialiser creates and does not expose) or report_fatal_error; inside
// argus-opt that loses the location, inside the Python bindings it kills the
// interpreter. So each gpu.module is serialised in a forked child process:
// the child sends the object back through a pipe, and its stderr (LLVM's
// messages, MLIR diagnostics) through another. A child that exits without an
// object (an LLVM error, a fatal error, a crash) becomes an error on the
// gpu.module with what it printed as notes.
//
//===----------------------------------------------------------------------===//

#include "argus/Target/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSMODULETOBINARY
#include "argus/Target/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

namespace {

/// How long a serialisation may take (ptxas on a large kernel included).
constexpr std::chrono::seconds kChildTimeout{900};

/// What a serialisation in a child process produced.
struct ChildResult {
  bool ran = false;      ///< the child could be started
  bool finished = false; ///< it exited normally and sent a result
  std::optional<SmallVector<char, 0>> object;
  std::string output; ///< its stderr
  std::string status; ///< how it ended, for the diagnostic
};

bool writeAll(int fd, const char *data, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    data += w;
    n -= size_t(w);
  }
  return true;
}

/// Runs `serialize` in a forked child; collects its object and stderr.
ChildResult
runInChild(function_ref<std::optional<SmallVector<char, 0>>()> serialize,
           MLIRContext *ctx) {
  ChildResult r;
  int out[2], err[2];
  if (::pipe(out) != 0)
    return r;
  if (::pipe(err) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return r;
  }
  // Nothing buffered in this process may be written twice by the child.
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out[0], out[1], err[0], err[1]})
      ::close(fd);
    return r;
  }
  if (pid == 0) {
    ::close(out[0]);
    ::close(err[0]);
    ::dup2(err[1], 2);
    // MLIR diagnostics of the serialiser go to stderr (the parent's handler,
    // e.g. the Python bindings' collector, lives in the parent).
    ScopedDiagnosticHandler print(ctx, [](Diagnostic &d) {
      llvm::errs() << d.getLocation() << ": " << d << "\n";
      for (Diagnostic &note : d.getNotes())
        llvm::errs() << note.getLocation() << ": note: " << note << "\n";
      return success();
    });
    std::optional<SmallVector<char, 0>> obj = serialize();
    llvm::errs().flush();
    char tag = obj ? 'O' : 'N';
    uint64_t size = obj ? obj->size() : 0;
    bool ok =
        writeAll(out[1], &tag, 1) &&
        writeAll(out[1], reinterpret_cast<const char *>(&size), sizeof(size)) &&
        (!obj || writeAll(out[1], obj->data(), obj->size()));
    ::_exit(ok ? 0 : 1);
  }
  ::close(out[1]);
  ::close(err[1]);
  r.ran = true;
  std::string data;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open = 2;
  char buf[65536];
  // The child runs only the serialiser, single-threaded (a fork keeps no
  // other thread); should it still hang, it is stopped after kChildTimeout.
  auto deadline = std::chrono::steady_clock::now() + kChildTimeout;
  bool timedOut = false;
  while (open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    int ready = left.count() > 0 ? ::poll(fds, 2, int(left.count())) : 0;
    if (ready < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (ready == 0) {
      ::kill(pid, SIGKILL);
      timedOut = true;
      break;
    }
    for (pollfd &p : fds) {
      if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t n = ::read(p.fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        ::close(p.fd);
        p.fd = -1;
        --open;
        continue;
      }
      (p.fd == fds[0].fd ? data : r.output).append(buf, size_t(n));
    }
  }
  for (pollfd &p : fds)
    if (p.fd >= 0)
      ::close(p.fd);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timedOut)
    r.status = "it did not finish within " +
               std::to_string(kChildTimeout.count()) + " s";
  else if (WIFSIGNALED(wstatus))
    r.status = "it was killed by signal " + std::to_string(WTERMSIG(wstatus));
  else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0)
    r.status = "it exited with status " + std::to_string(WEXITSTATUS(wstatus));
  uint64_t size = 0;
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 &&
      data.size() >= 1 + sizeof(size)) {
    std::memcpy(&size, data.data() + 1, sizeof(size));
    if (data[0] == 'O' && data.size() == 1 + sizeof(size) + size) {
      r.finished = true;
      r.object.emplace(data.begin() + 1 + sizeof(size), data.end());
    } else if (data[0] == 'N' && size == 0) {
      r.finished = true;
    }
  }
  if (!r.finished && r.status.empty())
    r.status = "it ended without a result";
  return r;
}

std::optional<gpu::CompilationTarget> parseFormat(StringRef format) {
  return llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
      .Case("offloading", gpu::CompilationTarget::Offload)
      .Case("llvm", gpu::CompilationTarget::Offload)
      .Case("assembly", gpu::CompilationTarget::Assembly)
      .Case("isa", gpu::CompilationTarget::Assembly)
      .Case("binary", gpu::CompilationTarget::Binary)
      .Case("bin", gpu::CompilationTarget::Binary)
      .Case("fatbinary", gpu::CompilationTarget::Fatbin)
      .Case("fatbin", gpu::CompilationTarget::Fatbin)
      .Default(std::nullopt);
}

struct ArgusModuleToBinaryPass
    : public ::mlir::argus::impl::ArgusModuleToBinaryBase<
          ArgusModuleToBinaryPass> {
  using ArgusModuleToBinaryBase::ArgusModuleToBinaryBase;

  /// Serialises `mod` for every target, each in a child process; fails
  /// with an error on `mod` when the backend does not produce an object.
  LogicalResult serialize(gpu::GPUModuleOp mod, gpu::CompilationTarget fmt,
                          function_ref<SymbolTable *()> table) {
    gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                               /*cmdOptions=*/"", /*elfSection=*/"", fmt,
                               table);
    SmallVector<Attribute> objects;
    for (Attribute attr : mod.getTargetsAttr()) {
      auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
      if (!target)
        return emitError(mod.getLoc())
               << "target " << attr << " cannot serialise a gpu.module";
      // A gfx942 code object is linked by ld.lld, which MLIR's ROCDL
      // serialiser runs from <toolkit>/llvm/bin and reports only as "lld
      // invocation failed": say where it looked and how to point it at one.
      std::string lld;
      if (fmt == gpu::CompilationTarget::Binary &&
          attr.getDialect().getNamespace() == "rocdl") {
        const char *rocm = std::getenv("ROCM_PATH");
        std::string root = !toolkit.empty() ? toolkit.getValue()
                           : rocm           ? std::string(rocm)
                                            : std::string("/opt/rocm");
        std::string from = !toolkit.empty() ? "toolkit=" + root
                           : rocm           ? "ROCM_PATH=" + root
                                  : "no toolkit= and no ROCM_PATH: /opt/rocm";
        lld = root + "/llvm/bin/ld.lld";
        if (!llvm::sys::fs::can_execute(lld))
          return emitError(mod.getLoc())
                 << "format=bin for " << attr << " links the code object with "
                 << "ld.lld, looked for at '" << lld << "' (" << from
                 << ", then llvm/bin), which is not there; hint: pass "
                    "toolkit=DIR "
                    "(or set ROCM_PATH=DIR) with ld.lld at "
                    "DIR/llvm/bin/ld.lld, "
                    "for example a link to Debian's lld-22: mkdir -p "
                    "DIR/llvm/bin && ln -s /usr/lib/llvm-22/bin/ld.lld "
                    "DIR/llvm/bin/ld.lld";
      }
      std::optional<SmallVector<char, 0>> object;
      ChildResult child =
          runInChild([&] { return target.serializeToObject(mod, options); },
                     &getContext());
      if (!child.ran) {
        // No process to isolate it in: serialise here, unguarded.
        object = target.serializeToObject(mod, options);
      } else {
        object = std::move(child.object);
        StringRef output = StringRef(child.output).trim();
        if (!child.finished || !object) {
          // At the module's location, without printing the module.
          InFlightDiagnostic diag = emitError(mod.getLoc())
                                    << "code generation for " << attr
                                    << " failed in the LLVM backend";
          if (!child.finished)
            diag << " (" << child.status << ")";
          SmallVector<StringRef> lines;
          output.split(lines, '\n', -1, false);
          // The last lines say why; keep the note list short.
          size_t first = lines.size() > 20 ? lines.size() - 20 : 0;
          for (size_t i = first; i < lines.size(); ++i)
            diag.attachNote(mod.getLoc()) << lines[i].trim();
          if (!lld.empty() && output.contains("lld invocation failed"))
            diag.attachNote(mod.getLoc())
                << "the linker was '" << lld
                << "'; hint: toolkit=DIR (or ROCM_PATH=DIR) picks "
                   "DIR/llvm/bin/ld.lld";
          return diag;
        }
        // Warnings the backend printed: pass them on.
        if (!output.empty())
          llvm::errs() << output << "\n";
      }
      if (!object)
        return emitError(mod.getLoc())
               << "an error happened while serialising the module for " << attr;
      Attribute obj = target.createObject(mod, *object, options);
      if (!obj)
        return emitError(mod.getLoc())
               << "an error happened while creating the object for " << attr;
      objects.push_back(obj);
    }
    OpBuilder b(mod);
    b.setInsertionPointAfter(mod);
    auto handler =
        dyn_cast_or_null<gpu::OffloadingLLVMTranslationAttrInterface>(
            mod.getOffloadingHandlerAttr());
    created.push_back(gpu::BinaryOp::create(b, mod.getLoc(), mod.getName(),
                                            handler, b.getArrayAttr(objects)));
    return success();
  }

  void runOnOperation() override {
    ModuleOp top = getOperation();
    std::optional<gpu::CompilationTarget> fmt = parseFormat(format);
    if (!fmt) {
      emitError(top.getLoc())
          << "argus-module-to-binary: unknown format '" << format
          << "'; hint: use isa, bin, llvm or offloading";
      return signalPassFailure();
    }
    std::optional<SymbolTable> table;
    auto lazyTable = [&]() -> SymbolTable * {
      if (!table)
        table.emplace(top);
      return &*table;
    };
    // Serialise every module first; replace them only when all succeeded,
    // so a failure leaves the module as it was.
    SmallVector<gpu::GPUModuleOp> mods(top.getOps<gpu::GPUModuleOp>());
    created.clear();
    for (gpu::GPUModuleOp mod : mods)
      if (failed(serialize(mod, *fmt, lazyTable))) {
        for (gpu::BinaryOp bin : created)
          bin.erase();
        return signalPassFailure();
      }
    for (gpu::GPUModuleOp mod : mods)
      mod.erase();
  }

  SmallVector<gpu::BinaryOp> created;
};

} // namespace
