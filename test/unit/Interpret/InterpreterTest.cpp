//===- InterpreterTest.cpp - the interpreter's rounding and launches ------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Interpret/Interpreter.h"

#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mlir;
namespace interp = ::argus::interp;
using ::argus::interp::roundTf32;
using ::argus::interp::roundTo;

TEST_CASE("f16, bf16 and e4m3 round to nearest even", "[interpret]") {
  MLIRContext ctx;
  Builder b(&ctx);
  Type f16 = b.getF16Type(), bf16 = b.getBF16Type(),
       e4m3 = Float8E4M3FNType::get(&ctx);
  // Ties go to the even neighbour, others to the nearest.
  CHECK(roundTo(f16, 1 + std::ldexp(1.0, -11)) == 1.0);
  CHECK(roundTo(f16, 1 + 3 * std::ldexp(1.0, -11)) == 1 + std::ldexp(1.0, -9));
  CHECK(roundTo(f16, 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -20)) ==
        1 + std::ldexp(1.0, -10));
  CHECK(roundTo(f16, std::ldexp(1.0, -25)) ==
        0.0); // half the smallest subnormal
  CHECK(roundTo(f16, 65520.0) == INFINITY);
  CHECK(roundTo(bf16, 1 + std::ldexp(1.0, -8)) == 1.0);
  CHECK(roundTo(bf16, 1 + 3 * std::ldexp(1.0, -8)) == 1 + std::ldexp(1.0, -6));
  CHECK(roundTo(e4m3, 1.0625) == 1.0);
  CHECK(roundTo(e4m3, 1.1875) == 1.25);
  CHECK(roundTo(e4m3, 300.0) == 288.0);
  CHECK(roundTo(b.getF32Type(), 1 + std::ldexp(1.0, -24)) == 1.0);
  CHECK(roundTo(b.getIntegerType(8), 130.0) == -126.0);
  CHECK(roundTo(b.getIntegerType(1), 2.0) == 1.0);
}

TEST_CASE("tf32 keeps 10 mantissa bits, to nearest even", "[interpret]") {
  CHECK(roundTf32(1 + std::ldexp(1.0, -11)) == 1.0);
  CHECK(roundTf32(1 + 3 * std::ldexp(1.0, -11)) == 1 + std::ldexp(1.0, -9));
  CHECK(roundTf32(1 + std::ldexp(1.0, -12)) == 1.0);
  CHECK(roundTf32(-3.0) == -3.0);
}

static OwningOpRef<ModuleOp> parse(MLIRContext &ctx, StringRef text) {
  ctx.loadDialect<mlir::argus::ArgusDialect, arith::ArithDialect,
                  func::FuncDialect, gpu::GPUDialect, memref::MemRefDialect,
                  scf::SCFDialect>();
  return parseSourceString<ModuleOp>(text, &ctx);
}

TEST_CASE("a launch adds two vectors per block and stops at a bad op",
          "[interpret]") {
  MLIRContext ctx;
  const char *text = R"mlir(
func.func @add(%X: memref<?xf16>, %Y: memref<?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c4 = arith.constant 4 : index
  %bx = gpu.block_id x
  %o = arith.muli %bx, %c4 : index
  %gx = argus.view "X" %X[%o] : memref<?xf16> -> !argus.tile<4xf16, global>
  %gy = argus.view "Y" %Y[%o] : memref<?xf16> -> !argus.tile<4xf16, global>
  %x = argus.load %gx : !argus.tile<4xf16, global> -> !argus.tile<4xf16, register, "(32,4):(0,1)">
  %s = argus.add %x, %x : !argus.tile<4xf16, register, "(32,4):(0,1)">
  argus.store %s, %gy : !argus.tile<4xf16, register, "(32,4):(0,1)">, !argus.tile<4xf16, global>
  return
})mlir";
  OwningOpRef<ModuleOp> m = parse(ctx, text);
  REQUIRE(m);
  auto fn = *m->getOps<func::FuncOp>().begin();
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 65504}, y(8, 0);
  std::vector<interp::KernelArg> args(2);
  args[0].kind = args[1].kind = interp::KernelArg::Buffer;
  args[0].buffer = {x.data(), {8}};
  args[1].buffer = {y.data(), {8}};
  interp::Result r = interp::runLaunch(fn, args, {2, 1, 1});
  REQUIRE(r.ok);
  CHECK(y == std::vector<double>({2, 4, 6, 8, 10, 12, 14, INFINITY}));
  CHECK(args[1].written);
  CHECK(!args[0].written);
  // Three blocks read past the end of the unclipped view.
  r = interp::runLaunch(fn, args, {3, 1, 1});
  CHECK(!r.ok);
  CHECK(r.error.find("'argus.load'") != std::string::npos);
  CHECK(r.error.find("outside the tensor") != std::string::npos);
  CHECK(r.error.find("block (2, 0, 0)") != std::string::npos);
}
