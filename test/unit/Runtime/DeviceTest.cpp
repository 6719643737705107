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

TEST_CASE("cluster and shared-memory validation", "[device][hopper]") {
  DeviceLimits lim;
  lim.ccMajor = 9;
  lim.maxSharedPerBlockOptin = 232448;
  LaunchConfig c;
  c.grid[0] = 8;
  c.grid[1] = 4;
  c.block[0] = 128;
  c.cluster[0] = 2;
  c.cluster[1] = 2;
  c.sharedMem = 232448;
  CHECK_NOTHROW(validateLaunch(c, lim));
  auto message = [&](const LaunchConfig &bad, const DeviceLimits &l) {
    try {
      validateLaunch(bad, l);
    } catch (const RuntimeError &e) {
      CHECK(e.kind == ErrorKind::Launch);
      return std::string(e.what());
    }
    return std::string("<accepted>");
  };
  LaunchConfig odd = c;
  odd.grid[0] = 6;
  odd.cluster[0] = 4;
  odd.cluster[1] = 1;
  CHECK(message(odd, lim) == "grid.x = 6 is not a multiple of cluster.x = 4");
  LaunchConfig big = c;
  big.cluster[0] = 4;
  big.cluster[1] = 4;
  big.grid[0] = 16;
  CHECK(message(big, lim).find("cluster of 16 blocks exceeds the portable "
                               "maximum of 8") != std::string::npos);
  DeviceLimits ampere = lim;
  ampere.ccMajor = 8;
  CHECK(message(c, ampere).find("compute capability 9.0") != std::string::npos);
  LaunchConfig smem = c;
  smem.sharedMem = 232449;
  CHECK(message(smem, lim) == "dynamic shared memory: requested 232449 bytes, "
                              "the device maximum per block (opt-in) is "
                              "232448");
}
