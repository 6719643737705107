// RUN: argus-opt %s -split-input-file --argus-verify-tags --verify-diagnostics -o /dev/null

// A scan along dim 1: output p combines the inputs q <= p, so the scanned
// coordinate is a range fact over [0, p] (as a reduce's over the whole
// row). "result.m == input.m" keeps its row: proved. "result.n <= 3" holds
// for every q <= p <= 3: proved. "result.n == 0" holds for q = 0 only:
// unknown. "input.n > 3" fails for every q: violated.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @scan(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%c0, %c0] ["m", "n"] = #Coord : !R
  // expected-note @+2 {{any block, thread}}
  // expected-note @+1 {{input element}}
  %s = argus.scan sum %t dim 1 : !R -> !R
  argus.tag_assert %s, "result.m == input.m" : !R
  argus.tag_assert %s, "result.n <= 3 && input.n <= 3" : !R
  // expected-warning @+1 {{depends on a reduced dimension}}
  argus.tag_assert %s, "result.n == 0" : !R
  // expected-error @+2 {{tag assertion 'input.n > 3' violated at 'argus.scan'}}
  // expected-note @+1 {{kernel arguments}}
  argus.tag_assert %s, "input.n > 3" : !R
  return
}

// -----

// Soundness of the bound q <= p: the tag "n" of output p is some input
// coordinate q <= p, never one after it. "result.n <= 1" is unknown, not
// proved, since output 3 combines q = 0 .. 3; under p = 0 only (a column
// of one element after a scan along dim 0 of a 64-row tile) it is proved.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @scan_bound(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%c0, %c0] ["m", "n"] = #Coord : !R
  %s = argus.scan max %t dim 1 : !R -> !R
  // expected-warning @+1 {{depends on a reduced dimension}}
  argus.tag_assert %s, "result.n <= 1" : !R
  %u = argus.scan min %t dim 0 : !R -> !R
  argus.tag_assert %u, "result.n == input.n && result.m <= input.m + 63" : !R
  return
}
