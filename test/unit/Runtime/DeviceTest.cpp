//===- DeviceTest.cpp - Device abstraction without a GPU ------------------===//
#include "argus/runtime/Device.h"
#include "argus/runtime/Error.h"

#include <catch2/catch.hpp>

using namespace argus::rt;

TEST_CASE("no GPU driver is reported cleanly", "[device]") {
  DeviceOptions o;
  o.cudaLibraries = {"libargus-missing-cuda.so.1"};
  o.hipLibraries = {"libargus-missing-hip.so"};
  try {
    openDevice(o);
    FAIL("openDevice succeeded without a driver");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::NoDriver);
    CHECK(static_cast<int>(e.kind) == 3);
    std::string m = e.what();
    CHECK(m.rfind("no GPU driver found (tried libargus-missing-cuda.so.1, "
                  "libargus-missing-hip.so): ",
                  0) == 0);
  }
}

TEST_CASE("a library without the driver API is not a driver", "[device]") {
  DeviceOptions o;
  o.cudaLibraries = {"libm.so.6"}; // loads, but has no cuInit
  o.hipLibraries = {};
  o.backend = "cuda";
  try {
    openDevice(o);
    FAIL("libm accepted as a CUDA driver");
  } catch (const RuntimeError &e) {
    CHECK(e.kind == ErrorKind::NoDriver);
    CHECK(std::string(e.what()).find("lacks cuInit") != std::string::npos);
  }
}

TEST_CASE("unknown backend is a spec error", "[device]") {
  DeviceOptions o;
  o.backend = "metal";
  CHECK_THROWS_AS(openDevice(o), RuntimeError);
}

TEST_CASE("launch validation", "[device]") {
  DeviceLimits lim;
  LaunchConfig c;
  c.grid[0] = 16;
  c.block[0] = 128;
  CHECK_NOTHROW(validateLaunch(c, lim));
  auto expectLaunchError = [&](LaunchConfig bad, const char *needle) {
    try {
      validateLaunch(bad, lim);
      FAIL("accepted");
    } catch (const RuntimeError &e) {
      CHECK(e.kind == ErrorKind::Launch);
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  LaunchConfig z = c;
  z.grid[1] = 0;
  expectLaunchError(z, "grid.y is 0");
  LaunchConfig big = c;
  big.block[0] = 64;
  big.block[1] = 32;
  expectLaunchError(big, "2048 threads");
  LaunchConfig bz = c;
  bz.block[2] = 128;
  bz.block[0] = 1;
  expectLaunchError(bz, "block.z");
  LaunchConfig sm = c;
  sm.sharedMem = 1 << 20;
  expectLaunchError(sm, "shared memory");
}

TEST_CASE("module format from path", "[device]") {
  CHECK(moduleFormatFromPath("k.ptx") == ModuleFormat::PTX);
  CHECK(moduleFormatFromPath("a/k.cubin") == ModuleFormat::Cubin);
  CHECK(moduleFormatFromPath("k.hsaco") == ModuleFormat::Hsaco);
  CHECK(moduleFormatFromPath("k.bin") == ModuleFormat::Auto);
}
