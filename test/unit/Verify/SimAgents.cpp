//===- SimAgents.cpp - agents of the concrete interpreter -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "SimAgents.h"

#include <stdexcept>

namespace argus::sim {

Agents::Agents(int schedule,
               std::function<void(const std::string &)> deadlocked)
    : schedule(schedule), rng(schedule), deadlocked(std::move(deadlocked)) {}

Agents::~Agents() {
  for (std::thread &t : threads)
    if (t.joinable())
      t.join();
}

size_t Agents::spawn(std::function<void()> body, bool entry) {
  std::unique_lock<std::mutex> l(mu);
  size_t self = agents.size();
  agents.emplace_back();
  agents.back().entry = entry;
  threads.emplace_back([this, self, body = std::move(body)] {
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return active == self || aborted; });
    }
    try {
      if (!aborted)
        body();
    } catch (Abort &) {
    } catch (std::exception &e) {
      std::unique_lock<std::mutex> l(mu);
      if (!aborted) {
        failure = e.what();
        aborted = true;
      }
    }
    std::unique_lock<std::mutex> l(mu);
    agents[self].state = State::Done;
    if (aborted)
      active = kNone;
    else
      handOff();
    cv.notify_all();
  });
  return self;
}

void Agents::run() {
  std::unique_lock<std::mutex> l(mu);
  handOff();
  cv.wait(l, [&] {
    for (const Agent &a : agents)
      if (a.state != State::Done)
        return false;
    return true;
  });
  l.unlock();
  for (std::thread &t : threads)
    t.join();
}

void Agents::block(size_t self, std::function<bool()> ready,
                   std::string where) {
  std::unique_lock<std::mutex> l(mu);
  if (ready())
    return;
  agents[self].state = State::Blocked;
  agents[self].ready = std::move(ready);
  agents[self].where = std::move(where);
  handOff();
  waitTurn(self, l);
}

void Agents::yield(size_t self) {
  if (schedule < 2)
    return preempt(self);
  std::unique_lock<std::mutex> l(mu);
  handOff();
  waitTurn(self, l);
}

/// Under a priority schedule, a higher-priority agent that became ready
/// takes over at once.
void Agents::preempt(size_t self) {
  std::unique_lock<std::mutex> l(mu);
  size_t next = pick();
  if (next == self || next == kNone)
    return;
  active = next;
  cv.notify_all();
  waitTurn(self, l);
}

size_t Agents::pick() {
  std::vector<size_t> ready;
  bool entries = false;
  for (const Agent &a : agents)
    entries |= a.entry && a.state != State::Done;
  for (size_t i = 0; i < agents.size(); ++i) {
    Agent &a = agents[i];
    if (entries && !a.entry)
      continue;
    if (a.state == State::Blocked && a.ready())
      a.state = State::Ready;
    if (a.state == State::Ready)
      ready.push_back(i);
  }
  if (ready.empty())
    return kNone;
  if (schedule == 0)
    return ready.front();
  if (schedule == 1)
    return ready.back();
  return ready[rng() % ready.size()];
}

/// Gives the turn to the next agent; none ready while some wait: every
/// waiting agent is deadlocked, and the run ends. Called with `mu` held.
void Agents::handOff() {
  active = pick();
  if (active == kNone) {
    bool any = false;
    for (Agent &a : agents)
      if (a.state == State::Blocked) {
        deadlocked(a.where);
        any = true;
      }
    aborted = any;
  }
  cv.notify_all();
}

void Agents::waitTurn(size_t self, std::unique_lock<std::mutex> &l) {
  cv.wait(l, [&] { return active == self || aborted; });
  if (aborted)
    throw Abort{};
}

} // namespace argus::sim
