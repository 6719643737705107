// RUN: argus-opt %s -split-input-file -verify-diagnostics

func.func @no_end() {
  // expected-error @+1 {{region "a" (id 1) has no matching 'argus.region.end id 1' later in the same block}}
  argus.region.begin "a" id 1
  return
}

// -----

func.func @no_begin() {
  // expected-error @+1 {{region end id 3 has no matching 'argus.region.begin' earlier in the same block}}
  argus.region.end id 3
  return
}

// -----

func.func @end_before_begin() {
  // expected-error @+1 {{region end id 1 has no matching 'argus.region.begin' earlier in the same block}}
  argus.region.end id 1
  argus.region.begin "a" id 1
  return
}

// -----

func.func @crossing() {
  // expected-error @+1 {{region "a" (id 1) ends while region id 2 opened inside it is still open; hint: regions nest and never cross, close the inner region first}}
  argus.region.begin "a" id 1
  argus.region.begin "b" id 2
  argus.region.end id 1
  argus.region.end id 2
  return
}

// -----

func.func @interrupted() {
  // expected-error @+1 {{region "c" (id 3) is interrupted by the end of region id 9 before its own end; hint: regions nest and never cross}}
  argus.region.begin "c" id 3
  argus.region.begin "d" id 4
  argus.region.end id 4
  // expected-note @+1 {{region id 9 ends here}}
  argus.region.end id 9
  argus.region.end id 3
  return
}

// -----

func.func @across_blocks(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{region "loop" (id 1) has no matching 'argus.region.end id 1' later in the same block; hint: a region must begin and end in the same block (inside the same loop body)}}
  argus.region.begin "loop" id 1
  scf.for %i = %c0 to %n step %c1 {
    argus.region.end id 1
  }
  return
}

// -----

func.func @duplicate_id() {
  // expected-note @+1 {{id 1 first used by region "a" here}}
  argus.region.begin "a" id 1
  argus.region.end id 1
  // expected-error @+1 {{region id 1 of region "b" is already used by region "a"; hint: region IDs must be unique within a kernel}}
  argus.region.begin "b" id 1
  argus.region.end id 1
  return
}

// -----

// Nested and sequential regions are fine; so are equal IDs in two kernels.
func.func @nested_ok() {
  argus.region.begin "a" id 1
  argus.region.begin "b" id 2
  argus.region.end id 2
  argus.region.begin "c" id 3
  argus.region.end id 3
  argus.region.end id 1
  return
}
func.func @other_kernel() {
  argus.region.begin "a" id 1
  argus.region.end id 1
  return
}

// -----

func.func @negative_id() {
  // expected-error @+1 {{attribute 'id' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  argus.region.begin "a" id -1
  argus.region.end id 0
  return
}

// -----

// Probe records hold the region ID in 32 bits: 2^32 + 1 would be recorded
// as 1 (issue 13).
func.func @id_too_large() {
  // expected-error @+1 {{region id 4294967297 does not fit the 32-bit region_id of a probe record (at most 4294967295); hint: choose IDs below 2^32, an ID at or above it would collide with id 1 in the probe records}}
  argus.region.begin "a" id 4294967297
  argus.region.end id 4294967297
  return
}

// -----

func.func @end_id_too_large() {
  argus.region.begin "a" id 4294967295
  argus.region.end id 4294967295
  // expected-error @+1 {{region id 4294967296 does not fit the 32-bit region_id}}
  argus.region.end id 4294967296
  return
}
