#!/usr/bin/env bash
# Build one program of benchmarks/ns3/ against Debian's libns3-dev (`make ns3` installs it).
#   build.sh [PROGRAM]      PROGRAM: dumbbell (the default) or queue_replay
# Prints the path of the binary: target/ns3-bench/<PROGRAM>-<ns-3 version>. The binary is
# rebuilt only when it is missing or older than the source (or this script); a build takes
# about 30-60 s (g++ -O2), most of it in ns-3's headers.
# Environment: CXX (default g++), CXXFLAGS (default -O2), TARGET_DIR (default <repo>/target).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
prog="${1:-dumbbell}"
if [[ ! "$prog" =~ ^[a-z0-9_]+$ || ! -f "$here/$prog.cc" ]]; then
  echo "build.sh: no program $here/$prog.cc" >&2
  exit 2
fi
src="$here/$prog.cc"
mods="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-point-to-point-layout ns3-applications ns3-traffic-control ns3-nix-vector-routing"
if ! pkg-config --exists $mods 2>/dev/null; then
  echo "build.sh: ns-3 development files not found (pkg-config $mods); run \`make ns3\` (Debian: apt-get install libns3-dev)" >&2
  exit 3
fi
ver="$(pkg-config --modversion ns3-core)"
out_dir="${TARGET_DIR:-$root/target}/ns3-bench"
bin="$out_dir/$prog-$ver"
mkdir -p "$out_dir"
# one build at a time per program (the test suite runs on several processes): a second
# caller waits for the first's binary instead of compiling it again
if command -v flock >/dev/null; then
  exec 9>"$out_dir/.$prog.lock"
  flock 9
fi
if [[ -x "$bin" && "$bin" -nt "$src" && "$bin" -nt "${BASH_SOURCE[0]}" ]]; then
  echo "$bin"
  exit 0
fi
# Debian's ns3-*.pc files carry a stray "-I/usr\;" token: drop anything with a ';' or '\'.
cflags=()
for f in $(pkg-config --cflags $mods); do [[ "$f" == *";"* || "$f" == *\\* ]] || cflags+=("$f"); done
# They also name /usr/lib/.../libgsl.so, which exists only with libgsl-dev: the ns-3
# libraries link GSL themselves, so a library path that does not exist is dropped.
libs=()
for f in $(pkg-config --libs $mods); do
  [[ "$f" == *";"* || "$f" == *\\* ]] && continue
  [[ "$f" == /* && ! -e "$f" ]] && continue
  libs+=("$f")
done
${CXX:-g++} ${CXXFLAGS:--O2} -std=c++17 -o "$bin.tmp.$$" "$src" "${cflags[@]}" "${libs[@]}" >&2
mv "$bin.tmp.$$" "$bin"
echo "$bin"
