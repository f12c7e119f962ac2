#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build kvm-unit-tests' x86 tests (docs/kvm-unit-tests.md) in a copy of the
# tree: ../shared/third_party/kvm-unit-tests (from a git worktree, the one beside
# its main checkout), or KUT_SRC=PATH. The tree is GPL
# test material kept outside Tempo; it is copied to $BUILD/kut/src, never into
# the repository. Files that were symlinks in git come out of that store as
# one-line text files holding the link's target (x86/sieve.c holds
# "../common/sieve.c"): those are turned back into symlinks.
#   tests/kut/build.sh        prints the images' folder on its last line
# Where the tree is absent it prints "skipped: ..." and exits 0 (a user's
# machine); it exits 1 if the build fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
src=${KUT_SRC:-../shared/third_party/kvm-unit-tests}
# a git worktree elsewhere: the tree beside the main checkout
if [ -z "${KUT_SRC:-}" ] && [ ! -d "$src" ] &&
	common=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null); then
	src=$(dirname "$(dirname "$common")")/shared/third_party/kvm-unit-tests
fi
dst=$BUILD/kut/src
KUT_SKIP_MSG="skipped: no kvm-unit-tests tree (git clone https://gitlab.com/kvm-unit-tests/kvm-unit-tests.git at commit 1da1819e into ../shared/third_party/kvm-unit-tests, or set KUT_SRC)"

if [ ! -f "$src/x86/unittests.cfg" ] || [ ! -x "$src/configure" ]; then
	echo "$KUT_SKIP_MSG"
	exit 0
fi
src=$(readlink -f "$src")

# What the copy was made from: paths, sizes and times of the tree's files.
# The same stamp and the images present: nothing to do.
stamp=$( (echo "$src"; find "$src" -path "$src/.git" -prune -o -type f -printf '%P %s %T@\n' |
	LC_ALL=C sort) | md5sum | cut -d' ' -f1)
if [ -f "$dst/.tempo-stamp" ] && [ "$(cat "$dst/.tempo-stamp")" = "$stamp" ] &&
	[ -f "$dst/x86/apic.flat" ]; then
	echo "kut: up to date ($src)"
	echo "$dst/x86"
	exit 0
fi

echo "kut: copying $src to $dst"
rm -rf "$dst"
mkdir -p "$dst"
cp -R "$src/." "$dst/"
rm -rf "$dst/.git"
chmod -R u+w "$dst"

# A stored symlink: a small file of one line with no newline, no blanks, a
# relative path whose target exists in the copy. Real one-liners with blanks
# ("include ...", "#include ...") or absolute paths stay files.
links=0
while IFS= read -r -d '' f; do
	[ "$(wc -l < "$f")" -eq 0 ] || continue
	target=$(cat "$f")
	case $target in
	'' | /* | *[[:space:]]* | *[![:print:]]*) continue ;;
	esac
	dir=$(dirname "$f")
	[ -e "$dir/$target" ] || continue
	ln -sfn "$target" "$f"
	links=$((links + 1))
done < <(find "$dst" -type f -size -256c -print0)
echo "kut: $links stored symlinks restored"

log=$(readlink -f "$BUILD")/kut/build.log
echo "kut: ./configure --arch=x86_64 && make (log: $log)"
if ! (cd "$dst" && ./configure --arch=x86_64 && make -j1) > "$log" 2>&1; then
	tail -n 30 "$log"
	echo "kut: the kvm-unit-tests build failed (see $log)" >&2
	exit 1
fi

# The x86 tests are ELF32 multiboot1 images.
n=0
for f in "$dst"/x86/*.flat; do
	if command -v grub-file > /dev/null && ! grub-file --is-x86-multiboot "$f"; then
		echo "kut: $f is not a multiboot1 image" >&2
		exit 1
	fi
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "kut: no x86/*.flat built (see $log)" >&2; exit 1; }
echo "$stamp" > "$dst/.tempo-stamp"
echo "kut: $n images built"
echo "$dst/x86"
