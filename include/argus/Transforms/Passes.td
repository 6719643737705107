//===- Passes.td - argus transformations around the lowering -*- tablegen -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TRANSFORMS_PASSES_TD
#define ARGUS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ArgusInsertProbes : Pass<"argus-insert-probes", "::mlir::ModuleOp"> {
  let summary = "select argus regions to measure (probe plan on the markers)";
  let description = [{
    Marks (`argus_probe`) the `argus.region.begin` / `argus.region.end` markers of the
    selected regions as probes and records the probe plan on the kernel
    (`argus_probes`). The lowering (`argus-to-gpu`) turns each probed marker
    into a timer read that lane 0 of each selected warp appends as a 32-byte
    record to the probe buffer (runtime/include/argus/runtime/ProbeFormat.h),
    an extra last kernel argument. Markers are never moved, merged or
    duplicated: the region ID names the region after lowering.

    Signals: `duration` probes regions that are not inside a loop (one
    begin/end pair per warp and launch); `timeline` probes regions inside
    loops, once per iteration, with the innermost loop's iteration number
    (normalised to 0, 1, ...) in the record, restricted to
    `iteration-window`.

    `sync-sites` times synchronization sites: each named site (a barrier,
    `wait_group`, `wgmma_wait` or `mbarrier.wait` of a region, named
    `kind@region#n` as `--argus-print-sites` lists them) is wrapped in a new
    region of that name, with the next free ID of its kernel, whose markers
    are probed (per iteration inside a loop, once outside) whatever
    `regions` and `signals` select; without `regions`, sync sites select
    only their own regions (no selection at all selects every region). The
    site's own op is not moved. Each run's selection replaces an earlier
    run's (markers it does not select lose `argus_probe`).

    `completion-site` / `completion-iteration` (paired lists) force the
    completion of asynchronous sites (`cp.async-group`, `wgmma-group`, `tma`
    sites of `--argus-print-sites`): right after the site's issue (a group's
    commit, the TMA copy) a wait for it (`wait_group 0`, `wgmma_wait 0`, the
    `mbarrier.wait` on the phase the copy completes, derived from its stage
    index `x mod S` as parity `(x / S) mod 2`) runs in the listed iterations
    of the innermost loop only; region `completion:SITE` spans the issue and
    the forced wait and is probed per iteration. `site-trace` gives each
    listed site's issue a probed region `issue:SITE` and the op that
    completes it (the wait after the commit, the `mbarrier.wait` on the
    copy's ring) a probed region `wait:SITE`, forcing nothing: the reference
    trace that completion intervals of the same operation and iteration are
    joined to. Made regions take the kernel's next free IDs and are probed
    whatever `regions` and `signals` select.
  }];
  // Forced completion waits are built from arith and scf ops.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    ListOption<"regions", "regions", "std::string",
               "region names or numeric IDs to probe (default: all)">,
    ListOption<"signals", "signals", "std::string",
               "signals: duration, timeline (default: both)">,
    ListOption<"scopeWarps", "scope-warps", "int64_t",
               "warp indices (in the block) that write records (default: all)">,
    ListOption<"scopeBlocks", "scope-blocks", "int64_t",
               "linear block indices that write records (default: all)">,
    Option<"iterationWindow", "iteration-window", "std::string", "\"\"",
           "lo:hi — record loop iterations lo <= i < hi only (default: all)">,
    ListOption<"syncSites", "sync-sites", "std::string",
               "synchronization sites (kind@region#n, --argus-print-sites) "
               "to time, each in a new probed region of its name">,
    ListOption<"completionSites", "completion-site", "std::string",
               "asynchronous sites (kind@region#n) whose completion to "
               "force and time, paired with completion-iteration">,
    ListOption<"completionIterations", "completion-iteration", "int64_t",
               "the innermost loop's iteration (0, 1, ...) of each "
               "completion-site in which its completion is forced">,
    ListOption<"traceSites", "site-trace", "std::string",
               "asynchronous sites whose issue and completing op to time "
               "(regions issue:SITE and wait:SITE), without forcing waits">,
    Option<"keepPlans", "keep-plans", "bool", "false",
           "kernels that already carry a probe plan (argus_probes) keep it "
           "unchanged; only the others are planned with these options "
           "(what the lowering pipelines do with `probes=1` alone)">,
    Option<"capacity", "capacity", "int64_t", "4096",
           "records per warp the host should allocate (recorded on the kernel)">,
    Option<"clock", "clock", "std::string", "\"default\"",
           "timer: globaltimer | clock64 (NVPTX), memtime | memrealtime "
           "(AMDGPU); default: globaltimer / memtime">
  ];
}

def ArgusTensorMapParams : Pass<"argus-tensor-map-params",
                                "::mlir::gpu::GPUModuleOp"> {
  let summary = "tensor-map kernel parameters by value, as grid constants";
  let description = [{
    After the GPU-to-NVVM conversion: the parameters that the kernel's
    `argus_tensor_maps` passes by value become `llvm.byval` 128-byte arrays,
    64-byte aligned, with `nvvm.grid_constant` (PTX `.param .align 64 .b8
    p[128]`, whose generic address the TMA copies use without a local copy).
    The NVVM dialect accepts `nvvm.grid_constant` only on an `llvm.func`
    kernel, hence a pass after the conversion.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def ArgusMarkRegionLocations
    : Pass<"argus-mark-region-locations", "::mlir::ModuleOp"> {
  let summary = "name each op's location after the innermost measured region";
  let description = [{
    Before the lowering, while the region markers are there: every op inside
    a measured region gets the location `"argus.region:NAME"(LOC)` (a name
    location around its own), which the conversion patterns pass on to the
    code they make. `argus-region-line-files` turns it into line info after
    the lowering, so each instruction of the binary names its region exactly
    even where a source line (a helper called from two regions) has code in
    several. Ops outside every region keep their locations.
  }];
}

def ArgusRegionLineFiles
    : Pass<"argus-region-line-files", "::mlir::ModuleOp"> {
  let summary = "line info that names each instruction's measured region";
  let description = [{
    After `ensure-debug-info-scope-on-llvm-func`: an op whose location is
    `"argus.region:NAME"(LOC)` gets LOC in a lexical block of its
    function's subprogram whose file is `FILE [argus region NAME]` (same
    directory), so the `.loc` directives, ptxas `-lineinfo` and nvdisasm name
    the region with the line. The planner's `hw` collection reads it
    (python/argus/measure/pcmap.py). Other locations are left as they are.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // ARGUS_TRANSFORMS_PASSES_TD
