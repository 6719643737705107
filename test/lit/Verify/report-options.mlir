// Options of --argus-verify-tags that used to mean something else (issue 13).
//
// report= with -split-input-file: each chunk is verified on its own, and the
// report holds the kernels and checks of every chunk (it used to keep only
// the last chunk's).
// RUN: argus-opt %s -split-input-file --argus-verify-tags="report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=SPLIT
//
// A report that cannot be written is an error before the verification, and
// the module is not printed with it.
// RUN: not argus-opt %s -split-input-file --argus-verify-tags="report=%t.missing/r.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADPATH
//
// max-counterexamples=0 is rejected (a violation always has one).
// RUN: not argus-opt %s -split-input-file --argus-verify-tags="max-counterexamples=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAXCX
//
// timeout-ms=0 means no limit: the checks are proved, not unknown.
// RUN: argus-opt %s -split-input-file --argus-verify-tags="timeout-ms=0 report=%t.t0.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.t0.json --check-prefix=NOLIMIT

// SPLIT: "checks": [
// SPLIT: "kernel": "first"
// SPLIT: "kernel": "second"
// SPLIT: "kernels": [
// SPLIT: "name": "first"
// SPLIT: "name": "second"

// BADPATH: error: argus-verify-tags: cannot write report '{{.*}}.missing/r.json': {{.*}}
// BADPATH-NOT: see current operation
// BADPATH-NOT: func.func

// MAXCX: error: argus-verify-tags: max-counterexamples=0 is not allowed; hint: a violated check always comes with at least one counterexample
// MAXCX-NOT: see current operation

// NOLIMIT: "status": "proved"
// NOLIMIT-NOT: "status": "unknown"

#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @first(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%N, %N] ["m", "n"] = #Coord : !R
  %s = argus.add %t, %t : !R
  argus.tag_assert %s, "lhs.m == rhs.m && lhs.n == rhs.n" : !R
  return
}

// -----

#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @second(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %z = argus.fill 1.0 : !R
  %t = argus.tag %z [%N, %N] ["m", "n"] = #Coord : !R
  %s = argus.add %t, %t : !R
  argus.tag_assert %s, "lhs.m == rhs.m && lhs.n == rhs.n" : !R
  return
}
