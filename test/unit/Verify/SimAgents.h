//===- SimAgents.h - agents of the concrete interpreter ---------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The concurrency of the concrete interpreter's asynchronous model: every
// role of every simulated block is an agent, a body of code that runs on an
// OS thread of its own, exactly one at a time, handing the turn over at its
// synchronisation points. Which agent runs next is the schedule: 0 prefers
// the agent started first (the producer), 1 the one started last, others
// pick a random ready agent (seeded by the schedule) at every
// synchronisation point. When every agent that has not finished waits, the
// waiting ones are deadlocked and the run ends.
//
// Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TEST_SIMAGENTS_H
#define ARGUS_TEST_SIMAGENTS_H

#include <condition_variable>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace argus::sim {

/// Unwinds an agent when the run is abandoned (a deadlock, another agent's
/// failure).
struct Abort {};

class Agents {
public:
  /// `deadlocked` is told where each deadlocked agent waits.
  Agents(int schedule, std::function<void(const std::string &)> deadlocked);
  ~Agents();

  /// Adds an agent running `body`; it starts when the schedule picks it.
  /// Entry agents (each block's code before its roles) all run before any
  /// other: the lowering puts a cluster barrier after the mbarrier inits.
  size_t spawn(std::function<void()> body, bool entry);
  /// Runs the agents until every one is done or the run is abandoned.
  void run();
  /// Agent `self` waits until `ready()`; `where` names the wait if it
  /// deadlocks. Throws Abort when the run is abandoned.
  void block(size_t self, std::function<bool()> ready, std::string where);
  /// A synchronisation point of agent `self`: another may run here.
  void yield(size_t self);
  /// Why the run was abandoned by an agent's exception ("" if not).
  const std::string &error() const { return failure; }

private:
  enum class State { Ready, Blocked, Done };
  struct Agent {
    State state = State::Ready;
    bool entry = false;
    std::function<bool()> ready;
    std::string where;
  };
  static constexpr size_t kNone = ~size_t(0);
  int schedule;
  std::mt19937_64 rng;
  std::function<void(const std::string &)> deadlocked;
  std::vector<Agent> agents;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::condition_variable cv;
  size_t active = kNone;
  bool aborted = false;
  std::string failure;

  void preempt(size_t self);
  size_t pick();
  void handOff();
  void waitTurn(size_t self, std::unique_lock<std::mutex> &l);
};

} // namespace argus::sim

#endif // ARGUS_TEST_SIMAGENTS_H
