#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a bare GPU machine into one folder: the cuda-nccl shardscope-validate
# (debug symbols stripped), every shared library it loads that such a machine may lack (resolved with ldd),
# the scenarios and models, the PyTorch reference, the check itself and its case list.
#
#   scripts/gpu-bundle.sh [--build DIR] --out DIR
#   scripts/gpu-bundle.sh --torch-only --out DIR   (no build needed: the PyTorch steps and kernels only; the
#                                                  case files' gemms, run and probe cases then cannot run)
#
# Left to the target: the C and C++ runtimes (libc, libm, libstdc++, libgcc_s, ...) and the CUDA libraries
# (libcudart, libcublas, libcublasLt, libnccl, the driver's libcuda), which any machine with CUDA and PyTorch
# has (gpu-check.sh finds them) and which are far too big to carry (cuBLASLt alone is over 500 MB). Those names
# go to target-libraries. The bundle must stay under 64 MiB; the script fails if it does not, or if a library
# cannot be resolved. Exit 0 on success, 1 on failure, 2 for bad arguments.
set -euo pipefail

usage() { echo "usage: $0 [--build DIR | --torch-only] --out DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/default" out="" torch_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) [ $# -ge 2 ] || usage; build="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --torch-only) torch_only=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "gpu-bundle: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$out" ] || usage
bin="$build/validate/shardscope-validate"
fail() { echo "gpu-bundle: $*" >&2; exit 1; }
max_bytes=$((64 * 1024 * 1024))
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/validate" || fail "--out $out: cannot create the folder"
: >"$out/target-libraries"
if [ "$torch_only" = 0 ]; then
  [ -x "$bin" ] || fail "$bin: not built (cmake --preset default && cmake --build --preset default --target shardscope-validate)"
  # ldd's whole output first: `ldd | grep -q` under pipefail fails when grep exits before ldd has written
  # everything (SIGPIPE), which made this check fail now and then on a binary that has the backend.
  linked=$(ldd "$bin")
  grep -q 'libcublas' <<<"$linked" || fail "$bin: built without the cuda-nccl backend (CUDA, cuBLAS, NCCL or MPI was not found at configure time)"
  objcopy --strip-debug "$bin" "$out/bin/shardscope-validate"
  probe="$build/validate/shardscope-pool-probe"
  [ -x "$probe" ] || fail "$probe: not built (cmake --build --preset default --target shardscope-pool-probe)"
  objcopy --strip-debug "$probe" "$out/bin/shardscope-pool-probe"

  # Libraries: the target's own runtimes are skipped, the CUDA ones listed for the target, the rest copied.
  target_provides='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s)\.so'
  target_cuda='^(libcuda|libcudart|libcublas|libcublasLt|libnccl)\.so'
  missing=$(ldd "$bin" | awk '/not found/ {print $1}')
  [ -z "$missing" ] || fail "$bin: ldd cannot resolve: $missing"
  ldd "$bin" | awk '/=>/ {print $1, $3}' | sort -u | while read -r name path; do
    if [[ "$name" =~ $target_provides ]]; then continue; fi
    if [[ "$name" =~ $target_cuda ]]; then echo "$name" >>"$out/target-libraries"; continue; fi
    cp -L "$path" "$out/lib/$name"
  done
fi

cp -r "$root/scenarios" "$out/scenarios"
mkdir -p "$out/validate/torch" "$out/validate/scenarios" "$out/scripts"
cp "$root"/validate/torch/*.py "$out/validate/torch/"
cp "$root"/validate/scenarios/*.yaml "$out/validate/scenarios/"
cp "$root/scripts/gpu-check.sh" "$out/scripts/"
cp "$root/validate/gpu-cases.tsv" "$out/cases.tsv"
cp "$root"/validate/gpu-cases-*.tsv "$out/" 2>/dev/null || true  # other case files (gpu-check.sh --cases)

# Every scenario and model the case files name must be in the bundle.
cat "$out"/cases.tsv "$out"/gpu-cases-*.tsv 2>/dev/null | while IFS=$'\t' read -r kind name input _; do
  case "$kind" in
    '#'*|'') continue ;;
    gemms|run|probe) [ "$torch_only" = 1 ] && continue ;;&
    probe) [ -x "$out/bin/shardscope-$name-probe" ] || fail "validate/gpu-cases.tsv: probe $name: bin/shardscope-$name-probe is not in the bundle"; continue ;;
  esac
  [ -e "$out/$input" ] || fail "validate/gpu-cases*.tsv: case $name: $input is not in the bundle"
done

{
  echo "shardscope gpu bundle, $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo '+changes'), made $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if [ "$torch_only" = 1 ]; then echo "torch only: no shardscope-validate"
  else echo "$("$out/bin/shardscope-validate" --no-mpi --help 2>/dev/null | head -n 1)"; fi
  echo "target libraries: $(tr '\n' ' ' <"$out/target-libraries")"
  (cd "$out" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
} >"$out/MANIFEST"

bytes=$(du -sb "$out" | cut -f1)
[ "$bytes" -le "$max_bytes" ] || fail "$out: $bytes bytes, over the 64 MiB a device call carries"
echo "gpu-bundle: $out: $(( bytes / 1024 )) KiB, $(ls "$out/lib" | wc -l) libraries bundled, $(wc -l <"$out/target-libraries") left to the target ($(tr '\n' ' ' <"$out/target-libraries"))"
