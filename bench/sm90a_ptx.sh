# Sourced by the compile.sh scripts of bench/ (development machine, needs
# argus-opt): verify an sm_90a argus kernel, dump its PTX (and the launch
# JSON beside it), and print ptxas's register and spill summary.
#
#   compile_verified_ptx OPT FILE OUT LABEL [unknown-ok]
#
# A violated check stops (returns argus-opt's status); with unknown-ok an
# unknown check (status 2) is reported and the kernel compiled anyway.
compile_verified_ptx() {
  local opt="$1" file="$2" out="$3" label="$4" unknown_ok="${5:-}" rc=0
  "$opt" "$file" --argus-verify-tags -o /dev/null || rc=$?
  if [ "$rc" = 2 ] && [ -n "$unknown_ok" ]; then
    echo "[$label] verified with unknown checks (warnings above)"
  elif [ "$rc" != 0 ]; then
    return "$rc"
  fi
  "$opt" "$file" --argus-to-nvptx="dump=$out" -o /dev/null
  if command -v /usr/local/cuda/bin/ptxas >/dev/null; then
    /usr/local/cuda/bin/ptxas -arch=sm_90a -v "$out" -o /dev/null 2>&1 |
      grep -E "registers|spill|warn" | sed "s/^/[$label] /"
  fi
  echo "wrote $out"
}
