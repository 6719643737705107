//===- LoweredModule.cpp - what a lowering pipeline leaves for a host -----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Target/LoweredModule.h"
#include "argus/Conversion/ArgusToGPU/KernelABI.h"
#include "argus/Verify/ModelLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::argus;

std::vector<LoweredObject> mlir::argus::loweredObjects(ModuleOp top) {
  std::vector<LoweredObject> objects;
  top.walk([&](gpu::BinaryOp bin) {
    for (Attribute a : bin.getObjects())
      objects.push_back(
          {bin.getSymName().str(),
           cast<gpu::ObjectAttr>(a).getObject().getValue().str()});
  });
  return objects;
}

std::vector<std::pair<std::string, KernelLaunchAttr>>
mlir::argus::launchABI(ModuleOp top) {
  std::vector<std::pair<std::string, KernelLaunchAttr>> kernels;
  if (auto dict = top->getAttrOfType<DictionaryAttr>(kLaunchAttr))
    for (NamedAttribute n : dict)
      if (auto launch = dyn_cast<KernelLaunchAttr>(n.getValue()))
        kernels.emplace_back(n.getName().str(), launch);
  return kernels;
}

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// The probe plan (argus-insert-probes) as JSON; null without probes.
static llvm::json::Value toJSON(ProbePlanAttr plan) {
  if (!plan)
    return nullptr;
  llvm::json::Object regions;
  for (NamedAttribute n : plan.getRegions())
    if (auto name = dyn_cast<StringAttr>(n.getValue()))
      regions[n.getName().str()] = name.str();
  return llvm::json::Object{
      {"capacity", plan.getCapacity()},
      {"clock", plan.getClock().str()},
      {"regions", std::move(regions)},
      {"warps", llvm::json::Array(plan.getWarps().asArrayRef())},
      {"blocks", llvm::json::Array(plan.getBlocks().asArrayRef())},
      {"iteration_lo", plan.getIterationLo()},
      {"iteration_hi", plan.getIterationHi()},
      {"warp_size", plan.getWarpSize()},
      {"warps_per_block", plan.getWarpsPerBlock()}};
}

/// A grid rule (integers, strings, arrays and dictionaries of them) as
/// JSON, the same tree; null without one.
static llvm::json::Value gridToJSON(Attribute a) {
  if (!a)
    return nullptr;
  if (auto flag = dyn_cast<BoolAttr>(a)) // before IntegerAttr: i1 reads as -1
    return flag.getValue();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getInt();
  if (auto s = dyn_cast<StringAttr>(a))
    return s.str();
  if (auto arr = dyn_cast<ArrayAttr>(a)) {
    llvm::json::Array out;
    for (Attribute x : arr)
      out.push_back(gridToJSON(x));
    return out;
  }
  llvm::json::Object out;
  if (auto d = dyn_cast<DictionaryAttr>(a))
    for (NamedAttribute n : d)
      out[n.getName().str()] = gridToJSON(n.getValue());
  return out; // KernelLaunchAttr::verify admits nothing else
}

llvm::json::Value mlir::argus::launchToJSON(KernelLaunchAttr launch) {
  llvm::json::Array params;
  for (auto p : launch.getParams().getAsRange<KernelParamAttr>())
    params.push_back(
        llvm::json::Object{{"kind", stringifyKernelArgKind(p.getKind()).str()},
                           {"arg", p.getArg()},
                           {"dim", p.getDim()},
                           {"type", typeName(p.getType())},
                           {"written", p.getWritten().getValue()}});
  llvm::json::Array maps;
  for (auto m : launch.getTensorMaps().getAsRange<TensorMapParamAttr>())
    maps.push_back(
        llvm::json::Object{{"param", m.getParam()},
                           {"name", m.getName().str()},
                           {"arg", m.getArg()},
                           {"box", llvm::json::Array(m.getBox().asArrayRef())},
                           {"element", typeName(m.getElement())},
                           {"swizzle", m.getSwizzle()},
                           {"oob_fill", m.getOobFill().str()},
                           {"pass", m.getPass().str()}});
  return llvm::json::Object{
      {"chip", launch.getChip().str()},
      {"block", llvm::json::Array(launch.getBlock().asArrayRef())},
      {"dynamic_smem", launch.getDynamicSmem()},
      {"params", std::move(params)},
      {"tensor_maps", std::move(maps)},
      {"probes", toJSON(launch.getProbes())},
      {"grid", gridToJSON(launch.getGrid())},
      {"indices", launch.getIndices() ? gridToJSON(launch.getIndices())
                                      : llvm::json::Value(llvm::json::Array())},
      // The verifier's model covers these ranges only: a launch outside
      // them is outside every proof, and launchers refuse it.
      {"limits",
       llvm::json::Object{
           {"integer", llvm::json::Array{::argus::verify::kScalarMin,
                                         ::argus::verify::kScalarBound}},
           {"size", llvm::json::Array{int64_t(1), ::argus::verify::kSizeBound}},
           {"grid",
            llvm::json::Array{int64_t(1), ::argus::verify::kGridBound}}}},
      {"cluster", launch.getCluster() ? llvm::json::Value(llvm::json::Array(
                                            launch.getCluster().asArrayRef()))
                                      : llvm::json::Value(nullptr)}};
}
