#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make dist`: the release tarball, OUTDIR/agentmm_VERSION.orig.tar.xz
# (the name Debian's orig tarball has; rpmbuild and make install take it as
# it is). It is what git tracks at HEAD, under agentmm-VERSION/, less
# debian/ (Debian's packaging is added to the release, not shipped in it:
# lintian's no-debian-changes) and less the third-party files that
# debian/copyright's Files-Excluded lists (one list for make dist and uscan). Reproducible: git archive writes the names
# in sorted order, owner and group 0, every mtime the commit's; the commit
# archived carries the last commit's date, so the same tree gives the same
# bytes (xz single-threaded). Beside it, OUTDIR/agentmm_VERSION.orig.spdx.json:
# its SPDX 2.3 SBOM (scripts/sbom.py: every file with its checksums and the
# licence its SPDX line names), as reproducible as the tarball.
#
# Usage: scripts/dist.sh [--worktree] OUTDIR
#   --worktree  the working tree as it is (tracked and untracked files git
#               does not ignore) instead of HEAD, still dated by the last
#               commit: what tests/pkg/deb builds the .debs from.
set -euo pipefail
die() { echo "dist: $*" >&2; exit 1; }
top=$(cd "$(dirname "$0")/.." && pwd)
worktree=0
[ "${1:-}" = --worktree ] && { worktree=1; shift; }
[ $# = 1 ] || die "usage: scripts/dist.sh [--worktree] OUTDIR"
mkdir -p "$1" && out=$(cd "$1" && pwd)
cd "$top"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	die "needs the git checkout (it archives what git tracks); this tree is already a release"
version=$(cat VERSION)

if [ $worktree = 1 ]; then
	idx=$(mktemp)
	trap 'rm -f "$idx"' EXIT
	GIT_INDEX_FILE=$idx git read-tree HEAD
	GIT_INDEX_FILE=$idx git add -A .
	tree=$(GIT_INDEX_FILE=$idx git write-tree)
else
	tree=$(git rev-parse 'HEAD^{tree}')
fi

# debian/copyright's Files-Excluded field: one pattern a word, continued on
# indented lines. A pattern that matches nothing means a file moved and the
# list is stale: fail rather than ship what it was meant to drop.
mapfile -t excluded < <(awk '
	/^Files-Excluded:/ { f = 1; sub(/^Files-Excluded:/, ""); print; next }
	f && /^[ \t]/ { print; next }
	{ f = 0 }' debian/copyright | tr -s ' \t' '\n' | grep -v '^$')
[ ${#excluded[@]} -gt 0 ] || die "no Files-Excluded in debian/copyright"
pathspec=(. ':(exclude)debian')
for p in "${excluded[@]}"; do
	[ -n "$(git ls-tree -r --name-only "$tree" -- "$p" | head -1)" ] ||
		die "Files-Excluded pattern '$p' (debian/copyright) matches no file of the tree: did it move? Update debian/copyright."
	pathspec+=(":(exclude)$p")
done

when="@$(git log -1 --format=%ct) +0000"
commit=$(GIT_AUTHOR_NAME=agentmm GIT_AUTHOR_EMAIL=agentmm@a-seed-af8fa2ee.example \
	GIT_COMMITTER_NAME=agentmm GIT_COMMITTER_EMAIL=agentmm@a-seed-af8fa2ee.example \
	GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when \
	git commit-tree "$tree" -m "agentmm $version")
tarball=$out/agentmm_$version.orig.tar.xz
git -c tar.umask=0022 archive --format=tar --prefix="agentmm-$version/" "$commit" -- "${pathspec[@]}" |
	xz -T1 -6 >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
sbom=$out/agentmm_$version.orig.spdx.json
python3 "$top/scripts/sbom.py" "$tarball" agentmm "$version" "$(git log -1 --format=%ct)" >"$sbom.tmp" ||
	die "the SBOM of $tarball could not be written (scripts/sbom.py)"
mv "$sbom.tmp" "$sbom"
echo "dist: $tarball ($(tar -tJf "$tarball" | grep -vc '/$') files; left out: ${excluded[*]}) and no debian/; SBOM $sbom"
