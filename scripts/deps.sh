#!/usr/bin/env bash
# Install the Debian 12 packages Argus builds and tests with (run as root).
# slurm-wlm and munge: test/python/test_slurm.py starts a throw-away
# single-node cluster from them (slurmctld, slurmd, munged in a temp dir).
# python3-torch (CPU PyTorch 1.13, about 140 MB to download, a minute to
# install): KernelBench tasks are PyTorch modules (test_kernelbench*.py,
# test_icrl.py; they skip with the reason when it is missing).
set -euo pipefail
PACKAGES=(
  cmake ninja-build ccache g++ clang-format
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22
  libz3-dev z3 pybind11-dev catch2 nlohmann-json3-dev
  python3 python3-dev python3-pytest python3-numpy
  python3-setuptools python3-pip python3-wheel python3-venv
  slurm-wlm munge
  python3-torch
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "argus: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
