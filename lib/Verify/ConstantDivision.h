//===- ConstantDivision.h - quotients by constants without dividers -*- C++
//-*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Stage indices of a ring whose depth is not a power of two (`kt % 3`),
// tile splits by a constant (`i / 3`) and the arithmetic lemmas' radix facts
// put unsigned quotients and remainders by constants into queries. Z3
// bit-blasts each into a divider circuit, quadratic in the width, that the
// SAT solver must reason through. Each pair x / C, x % C is instead replaced
// by two fresh variables q, r defined by
//
//   r < C  and  x == q * C + r   (in a width where the sum cannot wrap)
//
// which determines q and r uniquely (they are the quotient and remainder),
// so the rewritten query has exactly the models of the original, extended
// with q and r: an answer and a model of one are an answer and a model of
// the other. The product by a constant is a few adders.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_CONSTANTDIVISION_H
#define ARGUS_LIB_VERIFY_CONSTANTDIVISION_H

#include <z3++.h>

namespace argus::verify::detail {

/// `assertions` with every bvudiv / bvurem by a constant that is not a power
/// of two (Z3 turns those into bit selections itself) replaced by its
/// quotient or remainder variable, followed by the definitions of those
/// variables. Returns `assertions` unchanged when there is none.
z3::expr_vector eliminateConstantDivisions(z3::context &ctx,
                                           const z3::expr_vector &assertions);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_CONSTANTDIVISION_H
