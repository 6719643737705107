//===- bench-layout.cpp - Timing of the layout algebra --------------------===//
//
// Part of Argus. Times composition, logical_divide and complement on
// hierarchical layouts of rank 4 and depth 3 and prints ns/op (median of
// several repeats) against the budget justified in docs/Layout.md: the
// verifier calls these O(ops) times per kernel, kernels have < 1000 ops, so
// 5 us/op keeps the layout algebra under 5 ms of a 1 s verification budget.
//
// Usage: argus-bench-layout [iterations-per-repeat [repeats]]
//
//===----------------------------------------------------------------------===//
#include "argus/Layout/Layout.h"
#include "argus/Layout/Parse.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace argus::layout;

namespace {
constexpr double kBudgetNs = 5000.0;
volatile int64_t sink;

Layout parse(const char *s) {
  auto l = parsePlainLayout(s);
  if (!l) {
    std::fprintf(stderr, "bad layout %s: %s\n", s,
                 llvm::toString(l.takeError()).c_str());
    std::exit(1);
  }
  return *l;
}

double medianNsPerOp(const std::function<int64_t()> &op, int iters,
                     int repeats) {
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    int64_t acc = 0;
    for (int i = 0; i < iters; ++i)
      acc += op();
    auto t1 = std::chrono::steady_clock::now();
    sink = acc;
    samples.push_back(
        std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

int64_t sizeOr0(llvm::Expected<Layout> l) {
  if (!l) {
    std::fprintf(stderr, "unexpected error: %s\n",
                 llvm::toString(l.takeError()).c_str());
    std::exit(1);
  }
  return l->size();
}
} // namespace

int main(int argc, char **argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 20000;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  if (iters < 1 || repeats < 1) {
    std::fprintf(stderr, "usage: argus-bench-layout [iterations [repeats]]\n");
    return 2;
  }
  // Rank 4, depth 3 (a row-major 64K-element tile split hierarchically).
  Layout a = parse("(((2,2),(2,2)),((2,4),2),(4,(2,2)),((2,2),4))"
                   ":(((1,2),(4,8)),((4096,8192),32768),(16,(64,128)),"
                   "((256,512),1024))");
  // Reshape of A's domain, also rank 4 depth 3.
  Layout b = Layout::compact(llvm::cantFail(
      parseIntTuple("(((2,2),2),(2,(2,2)),((4,4),2),(2,(8,8)))")));
  // A 2-D tile with a gap.
  Layout tile = parse("((2,4),(4,2)):((1,16),(4,1024))");
  // An injective rank-4 depth-3 layout with holes.
  Layout holes = parse("(((2,2),(2,2)),((2,4),2),(4,(2,2)),((2,2),4))"
                       ":(((2,4),(16,32)),((16384,32768),131072),(64,(256,"
                       "512)),((1024,2048),4096))");
  int64_t hi = holes.cosize() * 4;

  struct Case {
    const char *name;
    std::string args;
    std::function<int64_t()> op;
  };
  std::vector<Case> cases = {
      {"composition", "A o B, size 65536",
       [&] { return sizeOr0(composition(a, b)); }},
      {"logical_divide", "A / tile (size 64)",
       [&] { return sizeOr0(logicalDivide(a, tile)); }},
      {"complement", "holes, cosize*4",
       [&] { return sizeOr0(complement(holes, hi)); }},
  };
  std::printf("argus layout algebra benchmark: rank 4, depth 3 layouts; "
              "median of %d repeats x %d iterations\n",
              repeats, iters);
  std::printf("budget: %.0f ns/op (see docs/Layout.md)\n\n", kBudgetNs);
  std::printf("%-16s %-22s %12s %10s %8s\n", "operation", "arguments", "ns/op",
              "budget", "status");
  bool allOk = true;
  for (Case &c : cases) {
    double ns = medianNsPerOp(c.op, iters, repeats);
    bool ok = ns < kBudgetNs;
    allOk &= ok;
    std::printf("%-16s %-22s %12.1f %10.0f %8s\n", c.name, c.args.c_str(), ns,
                kBudgetNs, ok ? "ok" : "OVER");
  }
  std::printf("\n%s\n", allOk ? "all operations within budget"
                              : "some operations exceed the budget");
  return 0;
}
