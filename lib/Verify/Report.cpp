//===- Report.cpp - the JSON report ---------------------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The format is docs/report-schema.md.
//
//===----------------------------------------------------------------------===//

#include "argus/Verify/TagVerifier.h"

namespace argus::verify {

const char *toString(Status s) {
  switch (s) {
  case Status::Proved:
    return "proved";
  case Status::Violated:
    return "violated";
  case Status::Unknown:
    return "unknown";
  }
  return "unknown";
}

llvm::json::Value toJSON(const std::vector<KernelReport> &reports) {
  llvm::json::Array checks;
  llvm::json::Array kernels;
  for (const KernelReport &k : reports) {
    kernels.push_back(
        llvm::json::Object{{"name", k.name},
                           {"threads", k.threads},
                           {"warp_size", k.warpSize},
                           {"milliseconds", k.milliseconds},
                           {"queries", k.queries},
                           {"assumptions", llvm::json::Array(k.assumptions)},
                           {"unchecked", llvm::json::Array(k.unchecked)}});
    for (const CheckResult &c : k.checks) {
      llvm::json::Array cexs;
      for (const Counterexample &cx : c.counterexamples) {
        llvm::json::Object blocks;
        for (auto &[d, v] : cx.blockIds)
          blocks[d] = v;
        llvm::json::Object params;
        for (auto &[p, v] : cx.params)
          params[p] = v;
        llvm::json::Array loops;
        for (auto &[l, v] : cx.loops)
          loops.push_back(llvm::json::Object{{"loop", l}, {"iv", v}});
        llvm::json::Array elems;
        for (const ElementInfo &e : cx.elements) {
          llvm::json::Object tags;
          for (auto &[f, v] : e.tags)
            tags[f] = v;
          llvm::json::Object o{{"operand", e.role},
                               {"tile_coords", llvm::json::Array(e.tileCoords)},
                               {"tags", std::move(tags)}};
          if (!e.memory.empty())
            o["memory"] = e.memory;
          if (!e.globalCoords.empty())
            o["global_coords"] = llvm::json::Array(e.globalCoords);
          if (e.thread >= 0) {
            o["thread"] = e.thread;
            o["slot"] = e.slot;
          }
          elems.push_back(std::move(o));
        }
        llvm::json::Object o{{"block", std::move(blocks)},
                             {"params", std::move(params)},
                             {"thread", cx.thread},
                             {"warp", cx.warp},
                             {"lane", cx.lane},
                             {"slot", cx.slot},
                             {"loops", std::move(loops)},
                             {"elements", std::move(elems)},
                             {"notes", llvm::json::Array(cx.notes)}};
        cexs.push_back(std::move(o));
      }
      checks.push_back(llvm::json::Object{
          {"kernel", c.kernel},
          {"kind", c.kind},
          {"predicate", c.predicate},
          {"op", c.siteName},
          {"location", c.siteLocation},
          {"assert_location", c.assertLocation},
          {"status", toString(c.status)},
          {"replay", c.status == Status::Violated ? "confirmed" : ""},
          {"reason", c.reason},
          {"witness", c.witness},
          {"milliseconds", c.milliseconds},
          {"queries", c.queries},
          {"counterexamples", std::move(cexs)}});
    }
  }
  return llvm::json::Object{{"version", 1},
                            {"kernels", std::move(kernels)},
                            {"checks", std::move(checks)}};
}

} // namespace argus::verify
