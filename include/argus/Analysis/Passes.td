//===- Passes.td - argus analysis test passes --------------*- tablegen -*-===//

#ifndef ARGUS_ANALYSIS_PASSES_TD
#define ARGUS_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ArgusPrintStructure : Pass<"argus-print-structure", "::mlir::ModuleOp"> {
  let summary = "Print the structure of every argus kernel";
  let description = [{
    For each function marked `argus.kernel` (or containing argus ops): the
    launch shape, shared buffers with their stages and layouts, the tensors
    it views, the tree of measured regions with their IDs, the matrix-core
    instructions and the tag assertions. Read-only.
  }];
}

#endif // ARGUS_ANALYSIS_PASSES_TD
