#!/usr/bin/env bash
# cmake --install into an empty prefix installs exactly the binary, the man page, the three
# completion scripts and the docs, and the installed binary runs.
# Usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR PREFIX
set -euo pipefail
cmake="$1"
build="$2"
root="$3"
prefix="$4"
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
got=$(cd "$prefix" && find . -type f -o -type l | sort)
want="./bin/roofline
./share/bash-completion/completions/roofline
./share/doc/roofline/LICENSE
./share/doc/roofline/README.md
./share/fish/vendor_completions.d/roofline.fish
./share/man/man1/roofline.1
./share/zsh/vendor-completions/_roofline"
if [[ $got != "$want" ]]; then
  echo "installed files differ from the expected list:"
  diff <(echo "$want") <(echo "$got") || true
  exit 1
fi
cmp "$prefix/share/bash-completion/completions/roofline" "$root/docs/completions/roofline.bash"
cmp "$prefix/share/zsh/vendor-completions/_roofline" "$root/docs/completions/_roofline"
cmp "$prefix/share/fish/vendor_completions.d/roofline.fish" "$root/docs/completions/roofline.fish"
cmp "$prefix/share/man/man1/roofline.1" "$root/docs/roofline.1"
"$prefix/bin/roofline" --version | grep -E '^roofline [0-9]+\.[0-9]+\.[0-9]+' >/dev/null
echo "installed $(echo "$got" | wc -l) files under $prefix"
