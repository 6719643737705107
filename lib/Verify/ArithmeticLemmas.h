//===- ArithmeticLemmas.h - division and product facts for Z3 ---*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Persistent tile loops (a grid-stride scf.for), tile indices split by a
// symbolic tile count and counters running through nested loops put
// products and quotients of two symbolic values into a query. Z3 bit-blasts
// them into multiplier and divider circuits, and the facts a proof needs
// ("t < a * d, so t / d < a"; "equal quotient and remainder, so equal
// dividends"; "q * C + r with r < C has one decomposition") then take the
// SAT solver longer than any timeout. This module instantiates those facts,
// which hold for every value of their terms (each carries its own
// conditions: divisor non-zero, no wrap-around), over the terms a query
// contains. Adding a valid fact never changes what is provable, so the
// lemmas make no check less sound; they only make proofs fast.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_ARITHMETICLEMMAS_H
#define ARGUS_LIB_VERIFY_ARITHMETICLEMMAS_H

#include <z3++.h>

#include <vector>

namespace argus::verify::detail {

/// Valid facts about the unsigned divisions by symbolic divisors, products
/// of two symbolic factors and sums with such a product that occur in
/// `roots`:
///   (L1) d != 0, a * d does not wrap   =>  (x < a * d  <=>  x / d < a)
///   (L2) d != 0  =>  (x / d == y / d && x % d == y % d  <=>  x == y)
///   (L3) r1, r2 < C, q_i * C + r_i does not wrap
///                  =>  (q1 * C + r1 == q2 * C + r2  <=>  q1 == q2 && r1 == r2)
///   (L4) r < d, q * d + r does not wrap
///                  =>  (q * d + r) / d == q && (q * d + r) % d == r
///   (L5) d != 0  =>  (y - y % d) % d == 0 && y >= y % d
///   (L6) d != 0  =>  x % d < d && x % d <= x
///   (L7) x = q * C + r, r < C, d = C * k (k constant), no wrap-around
///                  =>  x / d == q / k && x % d == (q % k) * C + r
///   (L8) two such dividends  =>  (x1 % d == x2 % d  <=>
///                                 q1 % k == q2 % k && r1 == r2)
///   (L9) a1 < a2, a2 * d does not wrap  =>  a1 * d does not wrap and
///                                            a1 * d + d <= a2 * d
///   (L10) d != 0, a < x / d  =>  a * d + d does not wrap and is <= x
///   (L11) a1 == a2  =>  a1 * d == a2 * d
///   (L12) d != 0  =>  (x / d) * d <= x && x - (x / d) * d < d
///   (L13) d != 0  =>  x / d <= x
///   (L14) a or d a multiple of 2^j  =>  so is a * d (narrow products)
///   (L15) C != 0, C * k does not wrap (k constant, x / k in the query)
///                  =>  x / (C * k) == (x / k) / C &&
///                      x % (C * k) == ((x / k) % C) * k + x % k
///   (L16) d == j (d's form bounds it by a small constant, j up to it)
///                  =>  a * d == a * j, and a * d wraps iff a * j does
///   (L17) d == j (as in L16)  =>  x / d == x / j && x % d == x % j
///   (L18) x / d == a  =>  x == a * d + x % d
///   (L19) d1 == d2, x / d1 == y / d2, x % d1 == y % d2  =>  x == y
/// Instances are capped per divisor or radix, so the lemmas stay small.
std::vector<z3::expr> arithmeticLemmas(z3::context &ctx,
                                       const z3::expr_vector &roots);

/// The residue of a strided induction variable: with iv >= lb and
/// (iv - lb) % step == 0, iv % step == lb when lb < step (the iterations of
/// a grid-stride loop starting at the block id), a valid fact that lets the
/// lemmas above tell two blocks' iterations apart.
z3::expr strideResidueLemma(const z3::expr &iv, const z3::expr &lb,
                            const z3::expr &step);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_ARITHMETICLEMMAS_H
