//===- IntegerTranslation.h - bit-vector queries as integer ones -*- C++
//-*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The verifier's queries are unsigned bit-vector formulas whose arithmetic
// is linear once symbolic products are abstracted: tile offsets, quotients
// by tile sizes, ranges of block ids. Bit-blasting turns every sum into an
// adder circuit, and a SAT solver proves an identity such as
// `e - 128 * (e / 128) < 128` over 24-bit adders slowly (seconds for the
// attention's output coverage). The same facts are trivial for a linear
// integer solver.
//
// The translation is exact, not an approximation: each bit-vector term t of
// width w becomes an integer term equal to t's unsigned value, and each
// wrap-around is an integer variable k with `value = L - 2^w k`, k ranging
// over the wraps that the operands' ranges allow (none, most of the time:
// ranges come from the query's own bounds on its variables). Quotients and
// remainders by constants and bit selections become variables with their
// defining equations. So the integer query is satisfiable exactly when the
// bit-vector one is, and an answer of either is an answer of both.
//
// Signed comparisons compare two's-complement values (the unsigned value
// less 2^w when the sign bit is set). Terms outside the fragment (products or
// quotients of two symbolic values, bitwise operations other than masks and
// shifts by constants, signed division) make the translation fail; the
// caller keeps the bit-vector query then.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_INTEGERTRANSLATION_H
#define ARGUS_LIB_VERIFY_INTEGERTRANSLATION_H

#include <z3++.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace argus::verify::detail {

/// A bit-vector query as linear integer arithmetic.
struct IntegerQuery {
  /// Conjuncts satisfiable exactly when the bit-vector query is.
  z3::expr_vector assertions;
  /// Each bit-vector variable of the query with the integer variable that
  /// is its unsigned value (so a model of one gives a model of the other).
  std::vector<std::pair<z3::expr, z3::expr>> variables;
};

/// The conjunction of `assertions` as linear integer arithmetic, or nullopt
/// when a term is outside the translated fragment (whose operator is then
/// named in `unsupported`, when given).
std::optional<IntegerQuery>
toLinearIntegers(z3::context &ctx, const z3::expr_vector &assertions,
                 std::string *unsupported = nullptr);

/// Values of a bit-vector query's variables (bit-vector numerals, and true
/// or false for Booleans).
class BitVectorValues {
public:
  void set(const z3::expr &var, const z3::expr &value);
  /// The value of the variable `var`, if it has one.
  std::optional<z3::expr> of(const z3::expr &var) const;
  /// The value of the variable `var`, or without one: false for a Boolean
  /// (as Z3 completes a model), the variable itself for a bit-vector (left
  /// free).
  z3::expr valueOr(const z3::expr &var) const;
  /// The variable with id `id` and its value, if it has one.
  std::optional<std::pair<z3::expr, z3::expr>> entry(unsigned id) const;
  /// `e` with its variables replaced by their values, simplified: a numeral
  /// (or true / false), or nullopt when a variable without a value leaves
  /// it symbolic.
  std::optional<z3::expr> evaluate(const z3::expr &e) const;

private:
  std::map<unsigned, std::pair<z3::expr, z3::expr>> byId; // var -> value
};

/// The terms of an integer query whose values in a model give the
/// bit-vector query's variables theirs: each variable's integer value, and
/// the Booleans of the query.
struct IntegerTerms {
  explicit IntegerTerms(const IntegerQuery &iq);
  z3::expr_vector terms;
  /// The bit-vector (or Boolean) variable each term gives the value of.
  std::vector<z3::expr> variables;
  /// The variables' values from the terms' values in a model (nullopt where
  /// a term has none; Booleans as 0 or 1).
  BitVectorValues
  values(const std::vector<std::optional<uint64_t>> &termValues) const;
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_INTEGERTRANSLATION_H
