//===- argus-opt.cpp - the argus optimizer and verifier driver ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// mlir-opt with the argus dialect, its passes and the upstream dialects
// argus kernels are written with.
//
// Exit status: 1 when the pipeline fails (a violated tag check fails
// --argus-verify-tags); after a successful pipeline, 2 when a tag check is
// unknown and the run did not pass allow-unknown=true, else 0. Under
// --verify-diagnostics the exit status is the diagnostic verifier's
// (docs/Verifier.md, "Exit status").
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/Passes.h"
#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/SourceLimits.h"
#include "argus/Pipelines/Pipelines.h"
#include "argus/Verify/Passes.h"
#include "argus/Verify/TagVerifier.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

/// argv with `--mlir-print-op-on-diagnostic=false` added unless the user
/// chose: a diagnostic's location and hint say where, and a dump of the op
/// (operands printed as <<UNKNOWN SSA VALUE>>) buries them.
static std::vector<char *> withQuietDiagnostics(int argc, char **argv) {
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  std::vector<char *> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]).contains("mlir-print-op-on-diagnostic"))
      return args;
  args.insert(args.begin() + 1, quiet);
  return args;
}

/// Whether everything written to `os` (`what`, for the message) reached
/// its file: a write error (a full disk) is printed and cleared here, since
/// one left on a raw_fd_ostream ends the process with an LLVM fatal error
/// when the stream is destroyed.
static bool checkWritten(llvm::raw_fd_ostream &os, llvm::StringRef what,
                         bool close) {
  if (close)
    os.close();
  else
    os.flush();
  if (!os.has_error())
    return true;
  llvm::errs() << "argus-opt: error writing " << what << ": "
               << os.error().message()
               << " (hint: check that the disk has space)\n";
  os.clear_error();
  return false;
}

int main(int argcIn, char **argvIn) {
  std::vector<char *> args = withQuietDiagnostics(argcIn, argvIn);
  int argc = static_cast<int>(args.size());
  char **argv = args.data();
  mlir::DialectRegistry registry;
  mlir::argus::registerArgusDialects(registry);
  mlir::registerTransformsPasses();
  mlir::argus::registerArgusAnalysisPasses();
  mlir::argus::registerArgusVerifyPasses();
  mlir::argus::registerArgusPasses();
  mlir::argus::registerArgusPipelines();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Argus optimizer and verifier\n", registry);
  // Read before MlirOptMain: the options are the parsed command line.
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  bool verifyDiagnostics = config.shouldVerifyDiagnostics();
  // Each chunk of -split-input-file is verified on its own: merge their
  // results into one report per report= path instead of keeping the last.
  argus::verify::setMergeReports(!config.inputSplitMarker().empty());
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  // MlirOptMain(argc, argv, input, output, registry), with the input read
  // here first: text MLIR's parser cannot survive is a located error.
  llvm::InitLLVM initLLVM(argc, argv);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (std::optional<mlir::argus::SourceLimitError> bad =
          mlir::argus::checkSourceLimits(input->getBuffer())) {
    llvm::SourceMgr sm;
    const char *at = input->getBufferStart() + bad->offset;
    sm.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sm.PrintMessage(llvm::SMLoc::getFromPointer(at), llvm::SourceMgr::DK_Error,
                    bad->message);
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  bool ok = mlir::succeeded(
      mlir::MlirOptMain(output->os(), std::move(input), registry, config));
  bool toStdout = outputFilename == "-";
  bool written = checkWritten(output->os(),
                              toStdout ? std::string("the standard output")
                                       : "'" + outputFilename + "'",
                              /*close=*/!toStdout);
  // What passes printed (--argus-print-structure, report=-).
  written &= checkWritten(llvm::outs(), "the standard output", false);
  if (!ok || !written)
    return EXIT_FAILURE;
  output->keep();
  // The diagnostic verifier has already judged the expected warnings and
  // errors of the tag checks.
  if (verifyDiagnostics)
    return EXIT_SUCCESS;
  return argus::verify::exitStatus(argus::verify::recordedOutcome());
}
