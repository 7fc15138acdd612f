#!/bin/sh
# Writes Commit.swift into $2: the commit of the tree at $1 that Herald is being built from, with
# -dirty when tracked files differ from it. HERALD_COMMIT wins (a build outside git, from a
# tarball); without either it is "unknown", said on stderr. The file is rewritten only when the
# commit changed, so an unchanged tree rebuilds nothing.
set -eu
root="$1"
out="$2"
commit="${HERALD_COMMIT:-}"
case "$commit" in
    *[!0-9A-Za-z.+-]*) echo "build-info: HERALD_COMMIT may hold only letters, digits and . + -; ignored" >&2; commit="" ;;
esac
# The tree itself must be the repository: a tarball unpacked inside another checkout is not
# that checkout's commit. safe.directory: a clone owned by another user (CI as root) is trusted
# for this read; --no-optional-locks: the status never takes the index lock a commit needs.
git_here() { git -c safe.directory="$root" --no-optional-locks -C "$root" "$@" 2>/dev/null; }
if [ -z "$commit" ] && [ "$(git_here rev-parse --show-toplevel || true)" = "$(cd "$root" && pwd -P)" ]; then
    if commit="$(git_here rev-parse --short=12 HEAD)"; then
        if [ -n "$(git_here status --porcelain --untracked-files=no || true)" ]; then
            commit="$commit-dirty"
        fi
    else
        commit=""
    fi
fi
if [ -z "$commit" ]; then
    echo "build-info: no git repository at $root and no HERALD_COMMIT: the commit is unknown" >&2
    commit="unknown"
fi
mkdir -p "$out"
next="$out/.Commit.swift.next"
printf '// Written by scripts/build-info.sh at build time; never in git.\nlet builtCommit = "%s"\n' "$commit" >"$next"
if cmp -s "$next" "$out/Commit.swift"; then
    rm -f "$next"
else
    mv "$next" "$out/Commit.swift"
fi
