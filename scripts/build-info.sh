#!/bin/sh
# Writes Commit.swift into $2: the commit of the tree at $1 that Herald is being built from, with
# -dirty when tracked files differ from it. HERALD_COMMIT wins (a build outside git, from a
# tarball); without either it is "unknown". The file is rewritten only when the commit changed,
# so an unchanged tree rebuilds nothing.
set -eu
root="$1"
out="$2"
commit="${HERALD_COMMIT:-}"
if [ -z "$commit" ] && commit="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null)"; then
    if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit-dirty"
    fi
fi
[ -n "$commit" ] || commit="unknown"
mkdir -p "$out"
next="$out/.Commit.swift.next"
printf '// Written by scripts/build-info.sh at build time; never in git.\nlet builtCommit = "%s"\n' "$commit" >"$next"
if cmp -s "$next" "$out/Commit.swift"; then
    rm -f "$next"
else
    mv "$next" "$out/Commit.swift"
fi
