# SPDX-License-Identifier: GPL-2.0
# summaries-lib.sh - sourced by demo-table.sh and reference-table.sh (POSIX
# sh): their command line, the summaries folder they read, and report.sh's
# paired ratios per regime. The caller defines usage() and sets arm (and
# base) to its defaults first.

# table_args "OPTS" ARG...: -h/--help, --arm ARM and, when OPTS holds
# "base", --base BASE; then exactly one DIR, a bench-host OUTDIR or its
# summaries folder. Sets arm, base, dir (the summaries folder) and here;
# makes tmp, removed on exit. Exits 2 on bad arguments.
# shellcheck disable=SC2034 # arm, base, dir, here and tmp are the caller's
table_args() {
	ta_opts=$1 ta_me=${0##*/}
	ta_me=${ta_me%.sh}
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) usage; exit 0 ;;
		--arm) [ $# -ge 2 ] || { usage >&2; exit 2; }; arm=$2; shift ;;
		--base)
			case " $ta_opts " in *" base "*) ;; *) echo "$ta_me: unknown option $1" >&2; usage >&2; exit 2 ;; esac
			[ $# -ge 2 ] || { usage >&2; exit 2; }; base=$2; shift ;;
		-*) echo "$ta_me: unknown option $1" >&2; usage >&2; exit 2 ;;
		*) break ;;
		esac
		shift
	done
	[ $# = 1 ] || { usage >&2; exit 2; }
	dir=$1
	[ -d "$dir/summaries" ] && dir=$dir/summaries
	here=$(cd "$(dirname "$0")" && pwd)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentmm-$ta_me.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
}

# regime_ratios REGIME: report.sh's paired ratios of dir/REGIME into
# tmp/REGIME.tsv; exits 1 naming report.sh's error.
regime_ratios() {
	"$here/report.sh" --from-summaries "$dir/$1" --ratios-out "$tmp/$1.tsv" >/dev/null 2>"$tmp/$1.err" ||
		{ echo "$ta_me: report.sh failed on $dir/$1:" >&2; cat "$tmp/$1.err" >&2; exit 1; }
}
