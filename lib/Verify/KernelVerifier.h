//===- KernelVerifier.h - the tag verifier of one kernel --------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// An abstract interpreter that builds, for each check, one quantifier-free
// bit-vector query: symbolic thread / slot / logical coordinate / loop
// iterations / kernel parameters, tags as terms over them, memory reads
// resolved to their latest writer through a bounded recency chain (see
// docs/Verifier.md). Unsupported constructs throw `Unsupported`, which turns
// the check into `unknown`; Z3 exceptions are caught the same way.
//
// The members are defined by concept, one file each:
//   IndexEvaluation.cpp   kernel parameters, index values, loop instances
//   TagTransfer.cpp       tags of register and memory tiles, op by op
//   LoopInvariants.cpp    tag fields carried unchanged by scf.for iter_args
//   MemoryViews.cpp       memory tiles resolved to roots, write footprints
//   LatestWriter.cpp      the recency chain and shared-memory reads
//   AssertCheck.cpp       argus.tag_assert
//   MemoryChecks.cpp      the implicit read / write checks
//   ViewChecks.cpp        the implicit checks of global views
//   BoundsChecks.cpp      tensor sizes, bounds of global accesses
//   ReductionCoverage.cpp every reduced index accumulated exactly once
//   OutputCoverage.cpp    every output element written exactly once
//   Counterexamples.cpp   model replay and counterexample contents
//   KernelVerifier.cpp    solving, the check harness, the driver
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_KERNELVERIFIER_H
#define ARGUS_LIB_VERIFY_KERNELVERIFIER_H

#include "BackgroundSolver.h"
#include "MemoryModel.h"
#include "SymbolicTerms.h"

#include "argus/Verify/TagVerifier.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <set>

namespace argus::verify::detail {

/// A `solve` budget of at most this many milliseconds is the integer
/// solver's first glance alone (unknown when it does not decide).
inline constexpr unsigned kGlanceMs = 2;

/// The stage operand of an op that names a slot of an mbarrier ring (wait,
/// arrive, arrive_expect_tx, tma_load); null for other ops
/// (MBarrierProtocol.cpp).
mlir::Value ringStageOf(mlir::Operation *op);
/// The stage count of an mbarrier ring value.
int64_t ringStages(mlir::Value barrier);

class KernelVerifier : SymbolicTerms {
public:
  KernelVerifier(mlir::func::FuncOp func, mlir::argus::KernelAttr kernel,
                 const VerifyOptions &opts)
      : func(func), opts(opts) {
    threads = kernel.getNumThreads();
    warpSize = kernel.getWarpSize();
    nvidia = kernel.getTarget().starts_with("sm_");
    for (unsigned d = 0; d < 3; ++d)
      cluster[d] = kernel.getClusterDim(d);
  }

  using Results = std::vector<CheckResult>;
  /// One check site: appends its results.
  using Task = std::function<void(Results &)>;

  /// Parameters and preconditions; fills the report's header.
  void prepare(KernelReport &rep);
  /// Computes what the checks share and depends on no Z3 context: the
  /// loop-invariant tag fields of every loop and which writes fill a whole
  /// stage. With several shards, one computes them and the others adopt.
  void precompute();
  void adopt(const KernelVerifier &from);
  /// Runs every stage-range check before the others (see brokenBuffers);
  /// with several shards, one runs them and the others adopt the results.
  void checkStageRanges();
  void adoptStageRanges(const KernelVerifier &from);
  /// Every check of the kernel, in a fixed order (see verifyKernel).
  std::vector<Task> tasks();
  /// The obligations of one index op (no underflow, values in the modelled
  /// range, no division by zero) for every instance of it.
  CheckResult checkIndexOp(mlir::Operation *op);
  /// Index ops evaluated with an obligation so far.
  const std::set<mlir::Operation *> &obligedOps() const { return obliged; }
  unsigned queryCount() const { return queries; }
  /// `assumptions`: the launch constraints (preconditions, launch bounds and
  /// the model's limits) are jointly satisfiable. Proved with a satisfying
  /// launch as witness; violated with the conflicting constraints (an unsat
  /// core): every other check of the kernel would be vacuous (Premises.cpp).
  CheckResult checkAssumptions();

private:
  mlir::func::FuncOp func;
  VerifyOptions opts;
  int64_t threads = 0, warpSize = 0;
  bool nvidia = false;            // sm_*: misaligned vector accesses fault
  int64_t cluster[3] = {1, 1, 1}; // blocks per thread-block cluster
  int64_t depth = 2;              // recency-chain depth per loop
  unsigned queries = 0;
  /// The integer stage of a query runs here while the bit-blaster probes it.
  BackgroundSolver background;
  /// The integer search for a model with the multiplier inputs fixed runs
  /// here while the bit-blaster searches for it.
  BackgroundSolver liftBackground;
  std::vector<std::pair<std::string, z3::expr>> paramVars; // for reports
  std::map<const void *, z3::expr> params;
  std::vector<z3::expr> paramCons;
  /// The obligations of the index arithmetic inside `argus.assume`
  /// conditions (no wrap-around): a precondition states a fact about
  /// integers, which its bit-vector reading matches only where they hold.
  /// Assumed by every query except those checking an op of an assumption
  /// (so no assumption's obligation is proved from another's), and their
  /// concrete facts are replayed with every counterexample.
  std::vector<Obligation> assumptionObligations;
  std::vector<Fact> assumptionFacts;
  std::set<mlir::Operation *> assumptionOps;
  /// Set while checking the obligations of an op in `assumptionOps`.
  bool checkingAssumptionOp = false;
  /// paramCons and, unless an assumption's op is being checked, the
  /// obligations of the assumptions' arithmetic.
  std::vector<z3::expr> launchConstraints() const;
  std::map<mlir::Operation *, std::vector<std::set<std::string>>> invariant;
  std::map<mlir::Operation *, const std::vector<std::set<std::string>> *>
      hypothesis;
  std::map<mlir::Operation *, std::string> fullStage; // "" when full
  std::map<mlir::Operation *, bool> relevant;
  /// Index ops evaluated with an obligation (checked by checkIndexOp).
  std::set<mlir::Operation *> obliged;
  /// The stage-range results by argus.stage, and the buffers (their
  /// argus.alloc) indexed out of range somewhere, with the first such stage
  /// op. A check whose operands reach such a buffer is not run: its access
  /// is already reported as wrong, and its queries can be very slow (a ring
  /// index modulo 1023 into a 3-stage buffer took a minute of Z3).
  std::map<mlir::Operation *, CheckResult> stageRange;
  /// A reduction loop's walk as reduction-coverage proved it by its closed
  /// form (r(lb + t * step, m, kk) == start +- t * BK + kk for every
  /// iteration): downward (a causal attention), so that reduction-range
  /// asks that reading first instead of paying for the other one's
  /// counterexample; upward, for the reduced `fields`, so that a loop
  /// continuing its accumulator takes where it stopped from the formula
  /// instead of a read chain at its last iteration (a pipelined GEMM's
  /// drain loop).
  struct ProvedWalk {
    bool down = false;
    std::set<std::string> fields;
  };
  std::map<mlir::Operation *, ProvedWalk> provedWalks;
  /// Whether the last loop proved from a declared start walked down.
  bool declaredWalkDown = false;
  /// Set while the caller takes whichever model a query's stages find first
  /// (Houdini's result, for one, does not depend on its models): an integer
  /// model then stops the bit-blasted probe it races instead of waiting for
  /// it. Elsewhere the witness must not depend on timing.
  bool anyModel = false;
  /// Set while only an unsat answer is acted on (a query asked to prove
  /// something, whose failure leads elsewhere): a model of the abstraction
  /// answers unknown at once instead of being lifted to the query (Z3 work
  /// that tells nothing more here). Possibly fewer proofs (an abstraction
  /// model may be spurious), never a wrong one.
  bool unsatOnly = false;
  std::map<mlir::Operation *, mlir::Operation *> brokenBuffers;
  /// The first broken buffer reached from `site`'s operands (through
  /// defining ops, loop-carried values and loop bounds), with its stage op.
  std::optional<std::pair<mlir::Operation *, mlir::Operation *>>
  brokenBufferUsed(mlir::Operation *site);
  /// output-coverage: whether the last store it proved needed the
  /// symbolic-first construction order (tried first for the next store).
  bool symbolicOrderFirst = false;

  // ---- premises (Premises.cpp, ModelledOps.cpp) ---------------------------
  /// Why each entry of paramCons holds, by position (the unsat core of a
  /// vacuous kernel names them).
  std::vector<std::string> paramWhy;
  /// `assumptions` when the staged solver did not find a launch: decides
  /// the constraints with one tracked literal each, so that a contradiction
  /// names its unsat core; `proved` records a satisfying launch.
  void decideWithCore(CheckResult &res,
                      llvm::function_ref<void(const z3::model &)> proved);
  /// Adds a launch constraint with its reason.
  void addLaunchCon(const z3::expr &c, std::string why);
  /// For the proved results of a check at `site`: a witness instance (a
  /// launch, block and loop iterations) where the site executes under the
  /// assumptions, kept in the result; none makes the results unknown
  /// ("vacuous"): a proof about an op that never runs says nothing.
  void witnessPremises(llvm::ArrayRef<CheckResult *> results,
                       mlir::Operation *site);
  /// The reachability of the sites of each region asked so far (one
  /// region's ops share their loops and branches): a witness, or `vacuous`.
  struct SiteWitness {
    bool vacuous = false;
    std::string witness;
  };
  std::map<mlir::Region *, SiteWitness> siteWitnesses;
  SiteWitness reachability(mlir::Operation *site);
  /// The ops of the kernel the semantic model does not interpret (name and
  /// location): every check is unknown while there is one (ModelledOps.cpp).
  std::vector<std::string> unmodelled;
  void collectUnmodelled();
  /// `argument-access` (ArgumentAccess.cpp): tensor arguments declared
  /// `argus.access = "in"` are never written, `"out"` ones are.
  void checkArgumentAccess(std::vector<CheckResult> &out);
  /// `named-barrier` (NamedBarriers.cpp): consistent counts per barrier id,
  /// and every generation a sync waits for completed, without deadlock.
  void checkNamedBarriers(std::vector<CheckResult> &out);

  // ---- parameters, index values, loop instances (IndexEvaluation.cpp) -----
  /// `x / c` (or `x % c`) when `x` is the block id or grid size of a
  /// clustered dimension and `c` divides the cluster's size: linear in the
  /// cluster parameters; none otherwise.
  std::optional<z3::expr> clusterQuotient(const z3::expr &x, int64_t c,
                                          bool rem);
  void collectParams();
  /// The kernel's `argus.assume` preconditions as parameter constraints;
  /// their messages (or why one could not be used) go to `out`.
  void collectAssumptions(std::vector<std::string> &out);
  /// The keys of the block-id and grid-size parameters in `params`.
  static const void *blockIdKey(unsigned dim) {
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(dim) + 1);
  }
  static const void *gridDimKey(unsigned dim) {
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(dim) + 8);
  }
  /// In a dimension with a cluster of c > 1 blocks: the cluster id, the
  /// rank in the cluster and the number of clusters, parameters of their
  /// own with block id = cluster id * c + rank and grid = clusters * c
  /// (linear, where the quotient and remainder would not be).
  static const void *clusterIdKey(unsigned dim) {
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(dim) + 16);
  }
  static const void *clusterRankKey(unsigned dim) {
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(dim) + 24);
  }
  static const void *clustersKey(unsigned dim) {
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(dim) + 32);
  }
  /// Whether the parameter named `n` is a block id or derived from one
  /// (cluster id and rank): what differs between the blocks of a launch.
  static bool blockDerived(const std::string &n) {
    return n.rfind("block_id.", 0) == 0 || n.rfind("cluster_id.", 0) == 0 ||
           n.rfind("cluster_rank.", 0) == 0;
  }
  /// Whether a counterexample lists the parameter named `n` among the
  /// kernel's arguments: not the block's ids (listed with the block) nor
  /// the cluster count (the grid's size over the cluster's).
  static bool shownAsArgument(const std::string &n) {
    return !blockDerived(n) && n.rfind("clusters.", 0) != 0;
  }
  /// Parameter `key`, or its stand-in in `renamedParams` (a second block).
  z3::expr param(const void *key);
  /// The contents of each kernel argument that the kernel loads index
  /// values from below its top level (in a loop) and never writes, by
  /// argument number: an uninterpreted function of the load's indices (the
  /// same for every block, iteration and load of that tensor), below
  /// kParamBound like the values loaded at entry. Every load of such a
  /// tensor, at entry too, is an application of it (collectParams).
  std::map<unsigned, z3::func_decl> loadedTensors;
  /// The value `ld` reads, as an application of its tensor's function.
  z3::expr loadedValue(mlir::memref::LoadOp ld, const Inst &in);
  /// Block ids and values loaded at entry, renamed while a check evaluates
  /// an instance of another block.
  std::map<const void *, z3::expr> renamedParams;
  z3::expr evalIndex(mlir::Value v, const Inst &in);
  z3::expr evalBool(mlir::Value v, const Inst &in);
  /// Iter_arg `idx` of `loop` (an index) in instance `in`, in closed form.
  z3::expr carriedIndex(mlir::scf::ForOp loop, unsigned idx, const Inst &in);
  /// An enclosing loop of an instance: its induction variable's term, lower
  /// bound and step.
  struct LoopVar {
    mlir::Operation *loop;
    z3::expr iv, lb;
    int64_t step; ///< 0 when the step is symbolic
    z3::expr stepTerm;
  };
  /// A symbolic instance of `op`: fresh induction variables constrained to
  /// their loops' ranges and the branches taken, as constraints of the query
  /// or, with `guardOnly`, as the instance's guard; `loops` receives the
  /// enclosing loops, outermost first.
  Inst freshInst(mlir::Operation *op, bool guardOnly = false,
                 std::vector<LoopVar> *loops = nullptr);
  /// Bounds and step of `loop` in instance `in`; the step may be symbolic
  /// (with an obligation that it is positive).
  void loopRange(mlir::scf::ForOp loop, const Inst &in, z3::expr &lb,
                 z3::expr &ub, z3::expr &step);
  /// The same for analyses that need a constant step (unsupported else).
  void loopBounds(mlir::scf::ForOp loop, const Inst &in, z3::expr &lb,
                  z3::expr &ub, int64_t &step);

  // ---- tags (TagTransfer.cpp, LoopInvariants.cpp) -------------------------
  Tags applyTagOp(mlir::argus::TagOp op, const std::vector<z3::expr> &c,
                  const Inst &in);
  Tags regTags(mlir::Value v, const std::vector<z3::expr> &c, const Inst &in);
  /// The value of an integer register tile's element at tile coordinates
  /// `c` when it depends on the coordinates and index values alone (iota,
  /// splat of an index, a non-negative integer fill, a comparison of such
  /// tiles: 1 or 0), through tags and layout conversions; none otherwise.
  /// Assertions read it as the operand's field `value` (`mask.value` of a
  /// select: a causal mask checked against the rows it compares).
  std::optional<z3::expr> tileValue(mlir::Value v,
                                    const std::vector<z3::expr> &c,
                                    const Inst &in, int depth = 0);
  Tags operandTags(mlir::Value v, const std::vector<z3::expr> &c,
                   const Inst &in, mlir::Operation *reader);
  Tags memTags(mlir::Value tile, const std::vector<z3::expr> &c, const Inst &in,
               mlir::Operation *reader, std::optional<z3::expr> readerThread);
  const std::vector<std::set<std::string>> &
  invariantFields(mlir::scf::ForOp loop);
  /// Adds to `out` the fields of iter_arg `idx` that are not invariant but
  /// computed afresh each iteration (register double-buffering): at
  /// iteration `iv` the value `iv - step` yielded, or `init` at the first.
  void carriedFields(mlir::scf::ForOp loop, unsigned idx, const Tags &init,
                     const std::vector<z3::expr> &c, const Inst &outer,
                     const z3::expr &iv, Tags &out);
  int carriedDepth = 0;

  // ---- memory (MemoryViews.cpp, LatestWriter.cpp) -------------------------
  MemView resolve(mlir::Value tile, const Inst &in);
  /// Why the write does not cover exactly one whole stage ("" when it does).
  std::string checkFullStage(mlir::Operation *write);
  std::optional<std::pair<int64_t, int64_t>>
  writerOf(mlir::Operation *writer, const std::vector<z3::expr> &coords,
           const z3::model &m);
  z3::expr inShape(const std::vector<z3::expr> &c,
                   const std::vector<int64_t> &shape);
  Tags readShared(const MemView &mv, const std::vector<z3::expr> &c,
                  const Inst &in, mlir::Operation *reader,
                  std::optional<z3::expr> readerThread, bool wantTags);
  bool hasRelevant(mlir::Operation *op);
  bool touchesRoot(mlir::Operation *op, mlir::Value root, AccessKind kind);
  /// The accesses of `kind` to `root` that may precede `op` in instance
  /// `in`, latest first, each with the sync events after it.
  void walkBefore(mlir::Operation *op, const Inst &in, mlir::Value root,
                  AccessKind kind, std::vector<Candidate> &out,
                  std::vector<SyncEvent> &evRev);
  void walkBlockBack(mlir::Block &b, const Inst &in, mlir::Value root,
                     AccessKind kind, std::vector<Candidate> &out,
                     std::vector<SyncEvent> &evRev);
  void visitBack(mlir::Operation *p, const Inst &in, mlir::Value root,
                 AccessKind kind, std::vector<Candidate> &out,
                 std::vector<SyncEvent> &evRev);
  /// Records `loop` as a cut-off candidate when it accesses `root` and
  /// `older` (iterations beyond the followed depth) may hold.
  void addCutoff(mlir::scf::ForOp loop, const Inst &in, mlir::Value root,
                 AccessKind kind, llvm::function_ref<z3::expr()> older,
                 std::vector<Candidate> &out,
                 const std::vector<SyncEvent> &evRev);

  /// While set, walks skip other warp roles (a thread's own accesses only).
  bool ownRoleOnly = false;

  // ---- checks (AssertCheck.cpp, MemoryChecks.cpp, KernelVerifier.cpp;
  // solving in SolveQuery.cpp) ------------------------------------------
  /// The logic of the query being solved: QF_UFBV when it applies the
  /// function of a loaded tensor (loadedTensors), else QF_BV.
  const char *queryLogic = "QF_BV";
  /// The integer solver's budget when `solve` is asked for a glance alone
  /// (a timeout of at most kGlanceMs).
  unsigned glanceOnlyMs = kGlanceMs;
  /// A query's budget of `ms` as Z3's deterministic resource limit (and
  /// `wallSlack` times `ms` of wall clock, for exceptionally slow units).
  void limitSolver(z3::solver &s, unsigned ms, unsigned wallSlack = 4);
  /// Checks `s` (logged as `what`); its model when satisfiable.
  z3::check_result decide(z3::solver &s, const std::string &what,
                          std::optional<z3::model> &model);
  /// A model of `query` with its variables `vars` (those in `only`, when
  /// given) fixed to `valueOf` (a variable whose value is not a constant
  /// stays free), if there is one; `answer` is the check's. While it runs,
  /// an unsat answer of `racing` interrupts it.
  std::optional<z3::model>
  lift(const z3::expr_vector &query, const std::vector<z3::expr> &vars,
       const std::function<z3::expr(const z3::expr &)> &valueOf,
       const std::string &what, const std::set<unsigned> *only = nullptr,
       BackgroundSolver *racing = nullptr, z3::check_result *answer = nullptr);
  /// Solve the current query plus `extra`, assuming every obligation but
  /// the `skip`-th.
  z3::check_result solve(const std::vector<z3::expr> &extra,
                         std::optional<z3::model> &model, int skip = -1,
                         unsigned timeoutMs = 0);
  void baseCons(Query &Q);
  /// Solves for a witness of `bad` (every obligation but the `skip`-th
  /// assumed). Proved when there is none, unknown on a timeout or when the
  /// replay disagrees; otherwise violated, and the smallest model found
  /// (replayed) comes back for the counterexample.
  std::optional<z3::model> findWitness(CheckResult &res,
                                       const std::vector<z3::expr> &bad,
                                       const Inst &in, int skip = -1,
                                       const std::vector<z3::expr> &also = {});
  /// Bounds that keep the kernel arguments (256), block ids and the terms
  /// of `small` (3) small.
  std::vector<z3::expr> smallArguments(const std::vector<z3::expr> &small);
  /// solve, for a query expected to be satisfiable: first (for a second)
  /// among small arguments, where products of symbolic values leave the
  /// solver little to search.
  z3::check_result solveSmallFirst(const std::vector<z3::expr> &extra,
                                   std::optional<z3::model> &model);
  /// findWitness, after a short probe among small kernel arguments and block
  /// ids (`small` bounds further terms): products of symbolic values make
  /// the unbounded query slow to satisfy, and most violations have a small
  /// witness.
  std::optional<z3::model>
  findWitnessSmallFirst(CheckResult &res, const std::vector<z3::expr> &bad,
                        const Inst &in, const std::vector<z3::expr> &small,
                        const std::vector<z3::expr> &also = {});
  /// A check result for `site` reported at `reportOp`.
  CheckResult newCheck(const char *kind, mlir::Operation *reportOp,
                       mlir::Operation *site);
  /// Runs `body` on a fresh query; an unsupported construct or a solver
  /// error makes every result unknown. Time and queries go to the first.
  void runCheck(llvm::ArrayRef<CheckResult *> results,
                llvm::function_ref<void(Query &)> body);
  CheckResult checkAssert(mlir::argus::TagAssertOp op);
  void checkRead(mlir::Operation *reader, mlir::Value source,
                 std::vector<CheckResult> &out);
  CheckResult checkInjective(mlir::Operation *write);
  CheckResult checkWar(mlir::Operation *write);
  CheckResult checkWaw(mlir::Operation *write);
  CheckResult checkStageRange(mlir::argus::StageOp op);
  /// Every bulk store's group is retired (tma_store_wait) before the role
  /// or kernel that issued it ends: its shared source must outlive it.
  CheckResult checkBulkStoreDrained(mlir::argus::TmaStoreOp store);
  /// Write after read (`Reads`) or write after write (`Writes`): an earlier
  /// access of another thread to the element `write` writes, not ordered
  /// before it.
  CheckResult checkPriorAccesses(mlir::Operation *write, AccessKind kind);

  // ---- global views (ViewChecks.cpp) --------------------------------------
  /// The implicit view checks: `tensor-name` for every argus.view and
  /// argus.gather_view, `view-tag` for every argus.tag on a global view.
  void checkViews(std::vector<CheckResult> &out);
  /// Each view name is bound to one tensor argument and each tensor argument
  /// to one name; `byName` / `byTensor` hold the first view of each so far.
  CheckResult checkTensorName(mlir::Operation *view,
                              std::map<std::string, mlir::Operation *> &byName,
                              std::map<unsigned, mlir::Operation *> &byTensor);
  /// The tags of a global view agree with each element's global coordinate.
  CheckResult checkViewTag(mlir::argus::TagOp op);

  // ---- tensor sizes and bounds of global accesses (BoundsChecks.cpp) ------
  /// Size `dim` of each memref kernel argument: a constant for a static
  /// dimension, else the parameter "argN.dimK" in [1, 2^23).
  std::map<std::pair<unsigned, unsigned>, z3::expr> sizeParams;
  /// Adds the size parameters of the kernel's memref arguments (called by
  /// collectParams).
  void collectSizes();
  /// The size of dimension `dim` of `memref` (a kernel argument).
  z3::expr tensorSize(mlir::Value memref, int64_t dim);
  /// The rows of an access through `gather` (its columns proved in bounds):
  /// inside the tensor by its index tensor's argus.assume_indices bound;
  /// unknown without one.
  void checkGatheredRows(CheckResult &res, mlir::argus::GatherViewOp gather,
                         const Inst &in);
  /// Size `dim` (0: rows, 1: columns) of an im2col view's matrix; saturates
  /// at the largest term (above every index value) when it does not fit.
  z3::expr im2colSize(mlir::Operation *im2colView, int64_t dim);
  /// `out-of-bounds`: every element a load / copy / copy_async / store
  /// accesses through an argus.view (the column of a gather_view) lies
  /// inside the viewed tensor, for every instance.
  void checkBounds(std::vector<CheckResult> &out);
  CheckResult checkAccessBounds(mlir::Operation *op, mlir::Value global);
  // ---- vector alignment of global accesses (AlignmentChecks.cpp) --------
  void checkAlignment(std::vector<CheckResult> &out);
  std::optional<CheckResult> checkAccessAlignment(mlir::Operation *op,
                                                  mlir::Value global);

  // ---- reductions (ReductionCoverage.cpp) ---------------------------------
  /// `reduction-coverage` for every argus.mma or mma_async whose
  /// accumulator the scf.for around it carries: each index of the reduced
  /// dimension is accumulated exactly once (A's reduced field runs through
  /// 0, 1, 2, ...).
  void checkReductions(std::vector<CheckResult> &out);
  /// The check of `mma` in `loop` (iter_arg `idx`; none when the loop does
  /// not yield the mma's result); an empty kind when A has no reduced field.
  /// `exactFields`: the reduced fields decided exactly up front (else
  /// those a glance cannot show independent are tried first; see
  /// reducedFields).
  CheckResult checkReductionCoverage(mlir::Operation *mma,
                                     mlir::scf::ForOp loop,
                                     std::optional<unsigned> idx,
                                     bool exactFields = false);
  /// `reduction-range` of an argus.reduced: the reduction behind its
  /// accumulator (a loop from a fresh accumulator, then mmas after it)
  /// covers exactly [lo, hi) of the reduced field, upward or downward.
  CheckResult checkReducedRange(mlir::argus::ReducedOp decl);
  /// A's tag fields that depend on the mma's k coordinate, those the mma's
  /// own assertions name on `a` when there are any. With `glance`, the
  /// fields a glance of the solver does not show independent (a superset,
  /// without the search a witness of dependence costs); `exact` says
  /// whether every answer was decided.
  std::vector<std::string> reducedFields(mlir::Operation *mma,
                                         bool glance = false,
                                         bool *exact = nullptr);
  /// Where a reduced field ends: the tensor argument `arg` whose global
  /// coordinate `dim` the field equals at every tag op naming it, and the
  /// view's bound of that dimension (none for a view that is not clipped
  /// to bounds).
  struct ReducedExtent {
    unsigned arg;
    mlir::Value tensor;
    unsigned dim;
    mlir::Value bound;
    std::string name; ///< the view's name
    /// The field is a coordinate of this im2col view's matrix, not of the
    /// tensor.
    mlir::Operation *im2col = nullptr;
  };
  /// The extents of field `f` per tensor: tensors whose tag ops disagree (a
  /// coordinate in one view, another function in the next, two
  /// dimensions or two bounds) have none.
  std::vector<ReducedExtent> reducedExtents(const std::string &f);

  // ---- what reaches global memory (OutputCoverage.cpp) --------------------
  /// `output-once` and `output-coverage` for every tensor argument the
  /// kernel stores to.
  void checkOutputs(std::vector<CheckResult> &out);
  /// A store (or copy) into a global view of an output tensor.
  struct OutputWrite {
    mlir::Operation *op = nullptr, *view = nullptr;
    mlir::Value dest;
    bool gather = false;
    std::optional<::argus::layout::Layout> layout; // (thread, slot) -> coord
    std::vector<int64_t> shape;
    /// Linear tile coordinates no thread of the block writes.
    std::vector<int64_t> missing;
    /// An atomic accumulation (argus.store atomic KIND), or a plain read of
    /// a tensor that is accumulated into (for atomic-race).
    bool atomic = false, read = false;
    /// For a gathered write whose rows are its index tensor's positions
    /// (the entries declared distinct, so distinct positions are distinct
    /// rows): the view the indices are loaded from; its dimension 0 is the
    /// position, from that view's offset. Null otherwise.
    mlir::argus::ViewOp positions;
  };
  /// Which pairs of accesses a pair check examines, and how it names them.
  struct PairRule {
    const char *kind;
    std::string predicate;
    /// Examine the pair (a, b)?
    std::function<bool(const OutputWrite &, const OutputWrite &)> examine;
    /// The two instances must be in different blocks (else: different
    /// blocks, loop iterations or ops).
    bool otherBlock = false;
  };
  /// One symbolic instance of an OutputWrite: the tensor coordinate of
  /// each dimension is offsets[k] + tile coordinate perm[k] (no offset for
  /// gathered rows).
  struct WriteInstance {
    Inst in;
    std::vector<LoopVar> loops;
    std::vector<std::optional<z3::expr>> offsets;
    std::vector<unsigned> perm;
    /// A view clipped `to` bounds: per tensor dimension, the coordinate at
    /// which its elements stop existing.
    std::vector<std::optional<z3::expr>> bounds;
  };
  /// `tile`: the global tile `op` accesses (default: the one it writes).
  OutputWrite outputWrite(mlir::Operation *op, mlir::Value tile = {});
  WriteInstance writeInstance(const OutputWrite &w, bool guardOnly);
  /// Marks gathered writes `positions` when all take their rows from one
  /// index tensor declared distinct; else says why not.
  std::string gatheredPositions(std::vector<OutputWrite> &ws);
  /// Whether the instance writes the tensor element `e`.
  z3::expr writesElement(const OutputWrite &w, const WriteInstance &wi,
                         const std::vector<z3::expr> &e);
  /// output-once (plain writes) and atomic-race (an atomic accumulation
  /// and a plain write or read of one element by different blocks): a
  /// quantifier-free query per examined pair.
  CheckResult checkAccessPairs(std::vector<OutputWrite> &ws,
                               mlir::Operation *reportOp, const PairRule &rule);
  CheckResult checkCoverage(std::vector<OutputWrite> &ws, bool writtenOnce);
  std::string coveredByCounting(std::vector<OutputWrite> &ws,
                                const std::vector<z3::expr> &size,
                                std::optional<z3::model> &shortLaunch);

  // ---- mbarrier rings (MBarrierProtocol.cpp) ------------------------------
  /// The pipeline-protocol checks of every mbarrier ring.
  void checkMBarriers(std::vector<CheckResult> &out);
  /// The nearest mbarrier.wait on `ring` before `op` that the thread running
  /// `op` executed in the same instance: earlier in its block, or before an
  /// enclosing op (never across loop iterations).
  mlir::argus::MBarrierWaitOp lastWaitOn(mlir::Operation *op,
                                         mlir::Operation *ring);
  /// The slot of `ring` that the last wait on it before `op` in op's thread
  /// waited for, at op's instance `in`: a wait before op (lastWaitOn), or
  /// the last iteration's wait of a loop before it whose body waits on the
  /// ring (then `ran` is whether that loop ran; true otherwise). None when
  /// neither is found.
  std::optional<z3::expr> lastWaitedSlot(mlir::Operation *op,
                                         mlir::Operation *ring, const Inst &in,
                                         z3::expr &ran);
  /// The slot `stage` (written `slot rem S`) names in instance `in`.
  z3::expr ringSlot(mlir::Operation *op, mlir::Value barrier, mlir::Value stage,
                    const Inst &in);
  /// (slot / S + delta) % 2.
  z3::expr parityOf(const z3::expr &slot, int64_t stages, int64_t delta);
  /// mbarrier-index: the stage operand of a ring op (wait, arrive,
  /// arrive_expect_tx, tma_load) is below the ring's stage count.
  CheckResult checkRingIndex(mlir::Operation *op);
  CheckResult checkWaitParity(mlir::argus::MBarrierWaitOp w);
  CheckResult checkExpectTx(mlir::argus::MBarrierArriveExpectTxOp e);
  CheckResult checkArrivals(mlir::argus::MBarrierAllocOp ring);
  // ---- liveness of rings (PhaseLiveness.cpp) -------------------------------
  /// The liveness part of checkArrivals: every phase a wait on `ring` waits
  /// for is completed by arrival instances that wait for nothing behind
  /// the wait. Returns what was not shown (empty when it is proved, or when
  /// a deadlock is confirmed: `res` is then violated).
  std::string checkPhasesArrive(mlir::argus::MBarrierAllocOp ring,
                                CheckResult &res);
  /// A wait whose phase no arrival names, confirmed by counting the arrival
  /// instances of the model's launch: `res` violated (true), or nothing.
  bool confirmMissingArrival(mlir::argus::MBarrierAllocOp ring,
                             CheckResult &res);
  /// Candidate instances of arrival `op` naming slot `x` of `ring`: the
  /// outer loops at the iterations of `near`'s loops of the same depth (the
  /// innermost of them also 1..S+1 earlier), the innermost solved from x.
  /// Each with whether it executes and names x.
  struct ArrivalInstance {
    z3::expr valid;
    Inst in;
  };
  std::vector<ArrivalInstance> arrivalNaming(mlir::Operation *op,
                                             mlir::Value ring,
                                             const z3::expr &x,
                                             const Inst &near);
  /// Whether some arrival instance on `ring` (in `role`, when given) names
  /// slot x, among the candidates near `near`; with `before`, also whether
  /// it precedes instance `beforeIn` of op `before` in program order.
  z3::expr namedBy(mlir::Operation *ring, const z3::expr &x, const Inst &near,
                   mlir::Operation *role = nullptr,
                   mlir::Operation *before = nullptr,
                   const Inst *beforeIn = nullptr);
  /// The stage a wait instance waits on and how many phase completions of
  /// it (arrival instances) it waits for.
  struct PhaseNeed {
    z3::expr stage, count;
  };
  PhaseNeed phaseNeed(mlir::argus::MBarrierWaitOp w, const Inst &in);
  /// The slot naming the last completion `need` waits for, with arrivals
  /// naming completion t of stage s as s + offset + t S.
  z3::expr lastNeeded(const PhaseNeed &need, int64_t offset, int64_t stages);
  /// How arrival instances on a ring name the phases of its waits: slots
  /// stage + offset + t S, offset 0 or S, proved for every wait (and names
  /// growing along the program, every round of a stage named); `why` says
  /// what failed when no offset is.
  struct PhaseNaming {
    std::optional<int64_t> offset;
    std::string why;
  };
  PhaseNaming phaseNaming(mlir::argus::MBarrierAllocOp ring);
  std::map<mlir::Operation *, PhaseNaming> ringNaming;
  /// Whether `conds()`, built on a fresh query of the launch's constraints,
  /// is unsatisfiable (the current query is left as it was).
  bool provedUnsat(const std::function<std::vector<z3::expr>()> &conds);
  CheckResult checkTmaSlot(mlir::argus::TmaLoadOp t);
  /// `reader` reads `source`, a stage that bulk copies fill.
  CheckResult checkAsyncReadOrder(mlir::Operation *reader, mlir::Value source);
  /// Whether bulk tensor copies write the root of `tile`.
  bool filledByBulkCopies(mlir::Value tile);
  /// The one bulk copy filling `root`, read by `reader` in another role
  /// (BulkCopyReads.cpp); unsupported otherwise.
  mlir::argus::TmaLoadOp bulkFiller(mlir::Value root, mlir::Operation *reader);
  /// readShared for memory bulk copies fill: the writer is the copy of the
  /// slot the last wait before the read completed.
  Tags readBulkFilled(const MemView &mv, const std::vector<z3::expr> &c,
                      const Inst &in, mlir::Operation *reader, bool wantTags);
  /// The producer instance at the iteration numbers of reader instance `in`
  /// (`fits`: it lies in the producer's loop ranges).
  Inst bulkWitness(mlir::argus::TmaLoadOp fill, mlir::Operation *wait,
                   const Inst &in, z3::expr &fits);
  /// Whether instance `ia` of `a` runs before instance `ib` of `b` in one
  /// thread's program order (iterations of the loops around both, then
  /// the ops' order in their innermost common block).
  z3::expr executesBefore(mlir::Operation *a, const Inst &ia,
                          mlir::Operation *b, const Inst &ib);
  /// Whether read view `mv` and the copy's view `wv` of one root put every
  /// element at the same address (mv's coordinates permuted by mv.perm).
  bool sameAddresses(const MemView &mv, const MemView &wv,
                     const std::vector<int64_t> &rootShape);
  /// `unwritten-read` of such a read.
  CheckResult checkBulkWritten(mlir::Operation *reader, mlir::Value source);
  /// Empty kind when the arrive releases no stage bulk copies fill.
  CheckResult checkStageRelease(mlir::argus::MBarrierArriveOp a);

  // ---- thread-block clusters (ClusterChecks.cpp) ---------------------------
  int64_t clusterSize() const { return cluster[0] * cluster[1] * cluster[2]; }
  /// Whether dimension `d` has a cluster of several blocks and a block id:
  /// then the cluster id, rank and cluster count are parameters.
  bool clusteredDim(unsigned d) const {
    return cluster[d] > 1 && params.count(blockIdKey(d));
  }
  /// The block id along `d` of the block of rank `rank` (along `d`) in
  /// this block's cluster.
  z3::expr peerBlockId(unsigned d, const z3::expr &rank) {
    return clusteredDim(d) ? params.at(clusterIdKey(d)) * bv(cluster[d]) + rank
                           : params.at(blockIdKey(d));
  }
  /// The rank in the cluster by dimension of the block of linear rank
  /// `rank` (x fastest), for the dimensions with a block-id parameter.
  std::map<unsigned, z3::expr> peerRanks(const z3::expr &rank);
  /// Evaluates as the block of the given ranks in this block's cluster
  /// while alive: block ids renamed, cluster ids kept (the same terms), so
  /// what depends on the cluster id alone is syntactically the same. Values
  /// loaded at entry are not modelled there (unsupported).
  class PeerBlock {
  public:
    PeerBlock(KernelVerifier &v, const std::map<unsigned, z3::expr> &ranks);
    ~PeerBlock() { v.renamedParams.clear(); }

  private:
    KernelVerifier &v;
  };
  /// Inside a PeerBlock: the instance of `op` at the iterations `numbers`
  /// of one of its instances in this block (read before the renaming); its
  /// guard says whether the peer runs it.
  struct Iteration {
    z3::expr iv, lb, step;
  };
  Inst sameIterations(mlir::Operation *op,
                      const std::vector<Iteration> &numbers);
  /// The iteration of each loop around `op` in instance `in`, outermost
  /// first.
  std::vector<Iteration> iterationNumbers(mlir::Operation *op, const Inst &in);
  /// `cluster-lockstep` of a multicast copy or a cluster-wide arrive.
  CheckResult checkClusterLockstep(mlir::Operation *op);
  /// The tags of element `cs` of the tile that multicast copy `fill`
  /// (instance `wi` in this block) delivers: those of the box's issuer.
  Tags multicastTags(mlir::argus::TmaLoadOp fill,
                     const std::vector<z3::expr> &cs, const Inst &wi,
                     const z3::expr &guard);

  /// `wgmma-ready` for every register read of an mma_async result
  /// (AsyncWgmma.cpp).
  void checkWgmmaReady(std::vector<CheckResult> &out);
  void checkWgmmaRegisterOperands(std::vector<CheckResult> &out);

  // ---- counterexamples (Counterexamples.cpp) ------------------------------
  /// The first recorded fact the model contradicts ("" when none).
  std::string replay(const z3::model &m);
  /// Marks `res` unknown when a counterexample's concrete replay disagrees
  /// with the solver (`why` says how); false when it agrees (`why` empty).
  static bool replayDisagrees(CheckResult &res, const std::string &why);
  /// Re-solve with small loop iterations, block ids and kernel arguments,
  /// keeping `model` when that is impossible: easier counterexamples.
  /// `also`: further terms to minimise, after the iterations and arguments.
  void preferSmall(std::vector<z3::expr> extra, const Inst &in,
                   std::optional<z3::model> &model, int skip = -1,
                   const std::vector<z3::expr> &also = {});
  void fillCommon(Counterexample &cx, const z3::model &m, const Inst &in);
  void setThread(Counterexample &cx, int64_t thread, int64_t slot);
  /// The element at tile coordinates `coords` of `memory` that the
  /// counterexample's own thread and slot access.
  ElementInfo accessedElement(const Counterexample &cx, const char *role,
                              const std::string &memory,
                              const std::vector<z3::expr> &coords,
                              const z3::model &m);
  void readNotes(Counterexample &cx, const z3::model &m);
  /// Global coordinates of a tile element of a viewed tensor (empty for
  /// shared memory and gathers).
  std::vector<int64_t> globalCoords(const MemView &mv, const z3::model &m,
                                    const std::vector<int64_t> &tileCoords);
};

} // namespace argus::verify::detail

namespace argus::verify {
/// Verify one kernel: its checks run on `opts.threads` shards, each with its
/// own Z3 context, and are reported in a fixed order.
KernelReport verifyKernel(mlir::func::FuncOp f, mlir::argus::KernelAttr kernel,
                          const VerifyOptions &opts);
} // namespace argus::verify

#endif // ARGUS_LIB_VERIFY_KERNELVERIFIER_H
