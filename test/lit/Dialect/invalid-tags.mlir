// RUN: argus-opt %s -split-input-file -verify-diagnostics

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">

func.func @tag_dims(%x: !T) {
  // expected-error @+1 {{tag map takes 1 coordinates but the tile has rank 2; hint: use d0..d1}}
  %t = argus.tag %x [] ["m"] = affine_map<(d0) -> (d0)> : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @tag_symbols(%x: !T, %i: index) {
  // expected-error @+1 {{tag map uses 2 symbols but 1 symbol operands are given}}
  %t = argus.tag %x [%i] ["m"] = affine_map<(d0, d1)[s0, s1] -> (d0 + s0 + s1)> : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @tag_fields(%x: !T) {
  // expected-error @+1 {{tag map computes 2 values for 1 fields}}
  %t = argus.tag %x [] ["m"] = affine_map<(d0, d1) -> (d0, d1)> : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @tag_name(%x: !T) {
  // expected-error @+1 {{tag field name "row m" is not an identifier}}
  %t = argus.tag %x [] ["row m"] = affine_map<(d0, d1) -> (d0)> : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @tag_reserved(%x: !T) {
  // expected-error @+1 {{tag field name "result" is reserved}}
  %t = argus.tag %x [] ["result"] = affine_map<(d0, d1) -> (d0)> : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @tag_reserved_tensor(%x: !T) {
  // expected-error @+1 {{tag field name "tensor" is reserved: every element of a global view carries it implicitly (the viewed tensor's argument number)}}
  %t = argus.tag %x [] ["tensor"] = affine_map<(d0, d1) -> (d0)> : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @tag_twice(%x: !T) {
  // expected-error @+1 {{tag field "m" is defined twice}}
  %t = argus.tag %x [] ["m", "m"] = affine_map<(d0, d1) -> (d0, d1)> : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_syntax(%x: !T) {
  %t = argus.tag %x [] ["m"] = affine_map<(d0, d1) -> (d0)> : !T
  %u = argus.add %t, %t : !T
  // expected-error @+1 {{invalid predicate "lhs.m = rhs.m": column 7: unexpected '='; expected an operator or the end of the predicate}}
  argus.tag_assert %u, "lhs.m = rhs.m" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_unclosed(%x: !T) {
  %t = argus.tag %x [] ["m"] = affine_map<(d0, d1) -> (d0)> : !T
  %u = argus.add %t, %t : !T
  // expected-error @+1 {{invalid predicate "(lhs.m == rhs.m": column 16: expected ')' to close the '(' at column 1}}
  argus.tag_assert %u, "(lhs.m == rhs.m" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_types(%x: !T) {
  %t = argus.tag %x [] ["m"] = affine_map<(d0, d1) -> (d0)> : !T
  %u = argus.add %t, %t : !T
  // expected-error @+1 {{invalid predicate "lhs.m + (rhs.m == 1)": column 21: the operand of '+'/'-' at column 16 is a condition, not an integer}}
  argus.tag_assert %u, "lhs.m + (rhs.m == 1)" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_integer(%x: !T) {
  %t = argus.tag %x [] ["m"] = affine_map<(d0, d1) -> (d0)> : !T
  %u = argus.add %t, %t : !T
  // expected-error @+1 {{predicate "lhs.m + 1" is an integer, not a condition; hint: compare it, e.g. "a.k == b.k"}}
  argus.tag_assert %u, "lhs.m + 1" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_bare_name(%x: !T) {
  %t = argus.tag %x [] ["m"] = affine_map<(d0, d1) -> (d0)> : !T
  %u = argus.add %t, %t : !T
  // expected-error @+1 {{'m' is not a tag reference; hint: write operand.field, e.g. 'a.k'}}
  argus.tag_assert %u, "m == 1" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_operand(%x: !T) {
  %t = argus.tag %x [] ["m"] = affine_map<(d0, d1) -> (d0)> : !T
  %u = argus.add %t, %t : !T
  // expected-error @+1 {{predicate names 'a' (column 1) but 'argus.add' has no operand 'a'; hint: use 'lhs', 'rhs' or 'result'}}
  argus.tag_assert %u, "a.m == rhs.m" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_field(%x: !T) {
  %t = argus.tag %x [] ["m", "n"] = affine_map<(d0, d1) -> (d0, d1)> : !T
  %u = argus.add %t, %t : !T
  // expected-error @+1 {{unknown tag field 'k' of 'lhs' (column 1): no argus.tag reaching it defines it; known fields: m, n}}
  argus.tag_assert %u, "lhs.k == rhs.m" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_untagged(%x: !T, %y: !T) {
  %u = argus.add %x, %y : !T
  // expected-error @+1 {{unknown tag field 'm' of 'rhs' (column 1): no argus.tag reaching it defines it; hint: the value carries no tags}}
  argus.tag_assert %u, "rhs.m == rhs.m" : !T
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @assert_block_arg(%x: !T) {
  // expected-error @+1 {{the subject must be the result of the op at which the assertion is checked, not a block argument}}
  argus.tag_assert %x, "result.m == 0" : !T
  return
}

// -----

func.func @assert_first() {
  // expected-error @+1 {{an assertion without a subject is checked at the preceding op, but there is none in this block}}
  argus.tag_assert "value.m == dest.m"
  return
}

// -----

// Fields flow through shared memory, loops and elementwise ops; elements of a
// global view carry the implicit field "tensor".
!G = !argus.tile<64x8xf32, global>
!S = !argus.tile<64x8xf32, shared, "(64,8):(8,1)">
!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @fields_flow(%A: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<?x?xf32> -> !G
  %gt = argus.tag %g [] ["m", "k"] = affine_map<(d0, d1) -> (d0, d1)> : !G
  argus.copy %gt, %s threads "(64,8):(8,1)" : !G, !S
  %r = argus.load %s : !S -> !T
  %z = argus.fill 0.0 : !T
  %zt = argus.tag %z [] ["m"] = affine_map<(d0, d1) -> (d0)> : !T
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zt) -> (!T) {
    %e = argus.exp %r : !T
    %s2 = argus.add %a, %e : !T
    argus.tag_assert %s2, "lhs.m == rhs.m && rhs.k >= 0 && result.rhs.k == rhs.k && rhs.tensor == 0" : !T
    scf.yield %s2 : !T
  }
  return
}

// -----

!G = !argus.tile<64x8xf32, global>
!S = !argus.tile<64x8xf32, shared, "(64,8):(8,1)">
!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @fields_through_memory(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<?x?xf32> -> !G
  %gt = argus.tag %g [] ["m", "k"] = affine_map<(d0, d1) -> (d0, d1)> : !G
  argus.copy %gt, %s threads "(64,8):(8,1)" : !G, !S
  %r = argus.load %s : !S -> !T
  %e = argus.exp %r : !T
  // expected-error @+1 {{unknown tag field 'n' of 'input' (column 1): no argus.tag reaching it defines it; known fields: k, m, tensor}}
  argus.tag_assert %e, "input.n == 0" : !T
  return
}

// -----

!S = !argus.tile<64x8xf32, shared, "(64,8):(8,1)">
func.func @reduced_memory(%s: !S, %i: index) {
  // expected-error @+1 {{the accumulator must be a 2-d register tile, not '!argus.tile<64x8xf32, shared, "(64,8):(8,1)">'; hint: name the value the reduction produced}}
  argus.reduced %s over "k" from %i to %i : !S
  return
}

// -----

!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">
func.func @reduced_field(%x: !T, %i: index) {
  // expected-error @+1 {{'a.k' is not a tag field name; hint: the reduced field of A, e.g. "k" or "n"}}
  argus.reduced %x over "a.k" from %i to %i : !T
  return
}
