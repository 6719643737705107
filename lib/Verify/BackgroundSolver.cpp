//===- BackgroundSolver.cpp - one query stage on a second core ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "BackgroundSolver.h"

#include <chrono>

namespace argus::verify::detail {

double resourceCount(z3::solver &s) {
  z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i)
    if (st.key(i) == "rlimit count")
      return st.is_uint(i) ? st.uint_value(i) : st.double_value(i);
  return 0;
}

std::vector<std::optional<uint64_t>> modelValues(const z3::model &m,
                                                 const z3::expr_vector &terms) {
  std::vector<std::optional<uint64_t>> values;
  for (unsigned i = 0; i < terms.size(); ++i) {
    z3::expr v = m.eval(terms[i], true);
    uint64_t u = 0;
    if (v.is_true() || v.is_false())
      values.push_back(v.is_true() ? 1 : 0);
    else if (v.is_numeral_u64(u))
      values.push_back(u);
    else
      values.push_back(std::nullopt);
  }
  return values;
}

BackgroundSolver::~BackgroundSolver() {
  cancel();
  if (worker.joinable())
    worker.join();
}

void BackgroundSolver::start(const z3::expr_vector &from,
                             const z3::expr_vector &wanted, MakeSolver make,
                             unsigned rlimit, unsigned timeoutMs,
                             bool satDecidesToo) {
  if (worker.joinable())
    worker.join();
  if (!ctx)
    ctx = std::make_unique<z3::context>();
  z3::context &src = from.ctx();
  assertions.emplace(*ctx);
  terms.emplace(*ctx);
  for (unsigned i = 0; i < from.size(); ++i)
    assertions->push_back(z3::expr(*ctx, Z3_translate(src, from[i], *ctx)));
  for (unsigned i = 0; i < wanted.size(); ++i)
    terms->push_back(z3::expr(*ctx, Z3_translate(src, wanted[i], *ctx)));
  answer = Answer();
  cancelled = false;
  decisive = false;
  satDecides = satDecidesToo;
  worker = std::thread([this, make = std::move(make), rlimit, timeoutMs] {
    run(make, rlimit, timeoutMs);
  });
}

void BackgroundSolver::run(const MakeSolver &make, unsigned rlimit,
                           unsigned timeoutMs) {
  auto start = std::chrono::steady_clock::now();
  try {
    z3::solver s = make(*ctx);
    z3::params p(*ctx);
    p.set("rlimit", rlimit);
    p.set("timeout", timeoutMs);
    s.set(p);
    for (unsigned i = 0; i < assertions->size(); ++i)
      s.add((*assertions)[i]);
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (cancelled)
        return;
      running = s;
    }
    z3::check_result r = s.check();
    {
      std::lock_guard<std::mutex> lock(mutex);
      running = nullptr;
      decisive = r == z3::unsat || (satDecides && r == z3::sat);
      // The foreground check is not needed after a deciding answer.
      if (decisive && foreground)
        Z3_solver_interrupt(foregroundCtx, foreground);
    }
    answer.result = r;
    answer.milliseconds = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    // Z3's resource counter is the context's: this query's work is what it
    // added since the last one.
    double count = resourceCount(s);
    answer.work = count - countBefore;
    countBefore = count;
    if (r != z3::sat)
      return;
    answer.values = modelValues(s.get_model(), *terms);
  } catch (...) {
    // Nothing may escape the thread (std::terminate): no answer instead, as
    // for a timeout.
    std::lock_guard<std::mutex> lock(mutex);
    running = nullptr;
    answer = Answer();
  }
}

void BackgroundSolver::cancel() {
  std::lock_guard<std::mutex> lock(mutex);
  cancelled = true;
  if (running)
    Z3_solver_interrupt(*ctx, running);
}

BackgroundSolver::Answer BackgroundSolver::wait() {
  if (worker.joinable())
    worker.join();
  assertions.reset();
  terms.reset();
  return answer;
}

BackgroundSolver::Foreground::Foreground(BackgroundSolver *bg, z3::context &ctx,
                                         z3::solver &s)
    : bg(bg) {
  if (!bg)
    return;
  std::lock_guard<std::mutex> lock(bg->mutex);
  bg->foregroundCtx = ctx;
  bg->foreground = s;
}

BackgroundSolver::Foreground::~Foreground() {
  if (!bg)
    return;
  std::lock_guard<std::mutex> lock(bg->mutex);
  bg->foregroundCtx = nullptr;
  bg->foreground = nullptr;
}

} // namespace argus::verify::detail
