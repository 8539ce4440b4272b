#!/usr/bin/env bash
# Prepare the LLVM that building the `cuda` feature needs, from Debian packages, with no access
# beyond the package registries (README "GPU").
#
#   scripts/cuda-llvm.sh            prepare it (idempotent: a second call only checks it)
#   scripts/cuda-llvm.sh --check    exit 0 if it is ready, 1 if not (prepares nothing)
#   then: CUDARC_CUDA_VERSION=13000 cargo build --release --features cuda
#
# Why: `cubecl-cuda` 0.11 depends on `cubecl-llvm`, whose build dependency `tracel-llvm-bundler`
# downloads an LLVM 23 bundle from GitHub unless `$XDG_DATA_HOME/tracel/tracel-llvm-23.1.0-4/`
# (default `~/.local/share/...`) holds `.tracel-llvm-installed`; then it only runs that
# directory's `bin/llvm-config --link-static` for the include and library directories, the
# static LLVM libraries and the system libraries. Debian's llvm-22 packages stand in:
# `apt-get download` + `dpkg -x` (no root, nothing installed system-wide) into a cache, and a
# directory of that name whose `bin/llvm-config` wraps Debian's, dropping what Debian's build
# adds and the bundle does not have (`-lPolly -lPollyISL`, the absolute `libz3.so`), with
# libzstd beside the LLVM libraries for the final link.
#
# LLVM 22 is not the pinned 23: the kernels it compiles are checked against `flex` on the GPU
# machine (scripts/gpu-check.sh, `bench outputs`). A real bundle already there is left alone.
#
# Environment: TENJIKU_LLVM_CACHE (default ~/.cache/tenjiku-llvm): where the packages go.
set -euo pipefail

LLVM_MAJOR=22
PACKAGES=(llvm-$LLVM_MAJOR llvm-$LLVM_MAJOR-dev libllvm$LLVM_MAJOR libzstd-dev)
data=${XDG_DATA_HOME:-$HOME/.local/share}
dest=$data/tracel/tracel-llvm-23.1.0-4
sentinel=$dest/.tracel-llvm-installed
marker=$dest/.tenjiku-stand-in
cache=${TENJIKU_LLVM_CACHE:-$HOME/.cache/tenjiku-llvm}

ready() {
    [ -f "$sentinel" ] && [ -x "$dest/bin/llvm-config" ] && "$dest/bin/llvm-config" --link-static --libdir >/dev/null 2>&1
}

if [ "${1:-}" = "--check" ]; then
    if ready; then echo "LLVM for cubecl-llvm: ready in $dest"; exit 0; fi
    echo "LLVM for cubecl-llvm: not prepared (run scripts/cuda-llvm.sh)"; exit 1
elif [ $# -gt 0 ]; then
    echo "usage: $0 [--check]" >&2; exit 2
fi

if ready; then
    if [ -f "$marker" ]; then what="Debian LLVM $(cat "$marker") stand-in"; else what="a tracel bundle"; fi
    echo "LLVM for cubecl-llvm: ready in $dest ($what)"
    exit 0
fi
if [ -e "$dest" ] && [ ! -f "$marker" ]; then
    echo "error: $dest exists but is not a complete LLVM (no .tracel-llvm-installed or no working bin/llvm-config); remove it and run again" >&2
    exit 1
fi

command -v apt-get >/dev/null && command -v dpkg >/dev/null || {
    echo "error: apt-get and dpkg are needed (a Debian or Ubuntu machine with llvm-$LLVM_MAJOR in its package sources)" >&2
    exit 1
}

# 1. The packages, downloaded once into the cache and unpacked there.
root=$cache/root
if [ ! -x "$root/usr/lib/llvm-$LLVM_MAJOR/bin/llvm-config" ]; then
    mkdir -p "$cache/debs"
    echo "downloading ${PACKAGES[*]} into $cache/debs"
    fetch() { (cd "$cache/debs" && apt-get download "${PACKAGES[@]}" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true); }
    fetch
    # A fresh machine may have no package lists yet: refresh them (needs root) and try again.
    if ! ls "$cache/debs/llvm-${LLVM_MAJOR}_"*.deb >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get update -qq && fetch
    fi
    for p in "${PACKAGES[@]}"; do
        ls "$cache/debs/${p}_"*.deb >/dev/null 2>&1 || {
            echo "error: could not download $p (is llvm-$LLVM_MAJOR in the apt sources? apt-get update may help)" >&2
            exit 1
        }
    done
    rm -rf "$root.tmp"
    mkdir -p "$root.tmp"
    for d in "$cache/debs"/*.deb; do dpkg -x "$d" "$root.tmp"; done
    rm -rf "$root"
    mv "$root.tmp" "$root"
fi
llvm=$root/usr/lib/llvm-$LLVM_MAJOR
libs=$root/usr/lib/x86_64-linux-gnu
[ -x "$llvm/bin/llvm-config" ] || { echo "error: $llvm/bin/llvm-config is missing after unpacking" >&2; exit 1; }

# 2. The directory the bundler looks in, built beside it and moved into place at the end.
tmp=$dest.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp/bin" "$tmp/lib"
ln -s "$llvm/include" "$tmp/include"
for f in "$llvm"/lib/*; do ln -s "$f" "$tmp/lib/"; done
for f in "$libs"/libzstd.a "$libs"/libzstd.so; do [ -e "$f" ] && ln -sf "$f" "$tmp/lib/"; done
cat > "$tmp/bin/llvm-config" <<EOF
#!/bin/sh
# Debian's llvm-config (scripts/cuda-llvm.sh), as the tracel bundle's would answer.
export LD_LIBRARY_PATH="$libs:$llvm/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
out=\$("$llvm/bin/llvm-config" "\$@") || exit \$?
for a in "\$@"; do
    if [ "\$a" = --libdir ]; then echo "$dest/lib"; exit 0; fi
done
printf '%s\n' "\$out" | sed -e 's# -lPollyISL##g; s#-lPollyISL ##g; s#-lPollyISL##g' \\
    -e 's# -lPolly##g; s#-lPolly ##g; s#-lPolly##g' -e 's#[^ ]*/libz3\.so[^ ]*##g' -e 's#  *# #g; s#^ ##; s# \$##'
EOF
chmod +x "$tmp/bin/llvm-config"
"$tmp/bin/llvm-config" --version > "$tmp/.tenjiku-stand-in"
touch "$tmp/.tracel-llvm-installed"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$tmp" "$dest"
# The wrapper names its own directory for --libdir: it was written for $dest.
ready || { echo "error: the prepared llvm-config in $dest does not run" >&2; exit 1; }
echo "LLVM for cubecl-llvm: prepared Debian LLVM $(cat "$marker") in $dest"
echo "build with: CUDARC_CUDA_VERSION=13000 cargo build --release --features cuda"
