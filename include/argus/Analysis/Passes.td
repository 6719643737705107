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

def ArgusPrintSites : Pass<"argus-print-sites", "::mlir::ModuleOp"> {
  let summary = "Print the measured regions and their sites as JSON";
  let description = [{
    What the region measurement planner (argus.measure) discovers in a
    program version: every measured region (name, ID, whether it lies in a
    loop, its enclosing region and warp role, its markers' locations), per
    region the asynchronous sites issued there (cp.async groups up to their
    commit, wgmma groups up to theirs, each TMA copy) with the op that
    completes each (the next wait_group / wgmma_wait in program order and
    around the innermost loop; the next mbarrier.wait on the copy's ring),
    its synchronization sites (barrier, wait_group, wgmma_wait,
    mbarrier.wait), and the deepest shared buffer's stage count. Sites are
    named `kind@region#n`. Fails on a region name with two IDs or markers
    that do not nest in their block. Read-only.
  }];
}

def ArgusPrintLineRegions
    : Pass<"argus-print-line-regions", "::mlir::ModuleOp"> {
  let summary = "Print each source line's ops by measured region as JSON";
  let description = [{
    The line table of the region measurement planner's hardware metrics:
    for every source line of the module's ops (region markers excepted),
    how many of its ops lie in each measured region, innermost only ("" for
    ops outside every region). A per-instruction hardware counter whose
    instruction carries that line in the lowered code's line info
    (`--argus-to-nvptx="lineinfo-regions=PATH"` writes this table next to
    the PTX) is attributed to those regions in proportion to the counts.
    Also lists the regions with their IDs and parents. Read-only.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"-\"",
           "write the JSON to this file ('-': standard output)">
  ];
}

#endif // ARGUS_ANALYSIS_PASSES_TD
