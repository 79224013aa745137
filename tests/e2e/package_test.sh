#!/usr/bin/env bash
# cpack -G DEB packages the built binary with its man page and completion scripts, and declares
# a Debian package for every shared library the binary needs. Packaged twice when dpkg-shlibdeps
# is installed: with the Depends it computes, and with the list configure derives from the build
# options (what a machine without dpkg-dev gets). Exit 77 (skipped) without cpack or dpkg-deb.
# Usage: package_test.sh CPACK BUILD_DIR WORK_DIR VERSION SUMMARY
set -euo pipefail
cpack="$1"
build="$2"
work="$3"
version="$4"
summary="$5"
for tool in "$cpack" dpkg-deb dpkg objdump; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipped: $tool is not installed"
    exit 77
  fi
done
arch=$(dpkg --print-architecture)
modes=(fallback)
command -v dpkg-shlibdeps >/dev/null && modes=(shlibdeps fallback)

check() {  # $1: the .deb, $2: the mode
  local deb="$1" mode="$2" fail=0
  local files
  files=$(dpkg-deb -c "$deb" | awk '{print $NF}')
  for f in ./usr/bin/roofline ./usr/share/man/man1/roofline.1 ./usr/share/bash-completion/completions/roofline \
    ./usr/share/zsh/vendor-completions/_roofline ./usr/share/fish/vendor_completions.d/roofline.fish; do
    grep -qxF -- "$f" <<<"$files" || { echo "$mode: $f is not in $(basename "$deb")"; fail=1; }
  done
  field() { dpkg-deb -f "$deb" "$1"; }
  [[ $(field Package) == roofline ]] || { echo "$mode: Package is '$(field Package)'"; fail=1; }
  [[ $(field Version) == "$version" ]] || { echo "$mode: Version is '$(field Version)', not $version"; fail=1; }
  [[ $(field Architecture) == "$arch" ]] || { echo "$mode: Architecture is '$(field Architecture)'"; fail=1; }
  [[ $(field Section) == utils ]] || { echo "$mode: Section is '$(field Section)'"; fail=1; }
  [[ $(field Maintainer) == *"<"*"@"*">" ]] || { echo "$mode: Maintainer '$(field Maintainer)' has no address"; fail=1; }
  [[ $(field Description | head -1) == "$summary" ]] || { echo "$mode: Description starts '$(field Description | head -1)'"; fail=1; }
  (($(field Description | wc -l) > 1)) || { echo "$mode: Description has no extended text"; fail=1; }
  if field Description | awk 'length > 80 { exit 1 }'; then :; else
    echo "$mode: Description has lines over 80 columns"
    fail=1
  fi
  local depends names
  depends=$(field Depends)
  names=$(tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/[ (].*//')  # "libc6 (>= 2.34)" -> libc6
  # Every library the packaged binary needs comes from a package that Depends names.
  local unpacked="$work/$mode-root"
  rm -rf "$unpacked"
  dpkg-deb -x "$deb" "$unpacked"
  local lib owners found
  for lib in $(objdump -p "$unpacked/usr/bin/roofline" | awk '$1 == "NEEDED" {print $2}'); do
    owners=$(dpkg -S "*/$lib" 2>/dev/null | cut -d: -f1 | tr -s ', ' '\n' | sort -u)
    found=0
    for p in $owners; do
      grep -qxF -- "$p" <<<"$names" && found=1
    done
    ((found)) || { echo "$mode: $lib (from ${owners:-no package}) is not in Depends: $depends"; fail=1; }
  done
  if objdump -h "$unpacked/usr/bin/roofline" | grep -q '\.debug_info'; then
    echo "$mode: the packaged binary is not stripped"
    fail=1
  fi
  echo "$mode: $(basename "$deb"): Depends: $depends"
  return "$fail"
}

fail=0
for mode in "${modes[@]}"; do
  out="$work/$mode"
  rm -rf "$out"
  mkdir -p "$out"
  flags=()
  [[ $mode == fallback ]] && flags=(-D ROOFLINE_DEB_SHLIBDEPS=OFF)
  if ! "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$out" "${flags[@]}" >"$out/cpack.log" 2>&1; then
    echo "$mode: cpack failed:"
    cat "$out/cpack.log"
    exit 1
  fi
  deb=("$out"/*.deb)
  check "${deb[0]}" "$mode" || fail=1
done
exit "$fail"
