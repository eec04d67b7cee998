#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# prepare.sh WORKDIR SEED N: the workspaces of agentload's real-tool
# workload (agentload --tools real runs this before its timer starts).
# WORKDIR/template-s<SEED> is generated once by mkworkspace.py (cached);
# every run gets N fresh copies in WORKDIR/run/sb-<i> (each with its own
# venv, created without pip and with the system site packages, so that
# `python -m pip install --no-index` works offline), so every run and every
# arm starts from the identical files and git history.
set -eu
[ $# -eq 3 ] || { echo "usage: prepare.sh WORKDIR SEED N" >&2; exit 2; }
workdir=$1 seed=$2 n=$3
tools=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x $py ] || { echo "prepare.sh: $py missing (Debian python3; make deps)" >&2; exit 1; }
for m in pytest venv; do
	$py -c "import $m" 2>/dev/null ||
		{ echo "prepare.sh: $py has no '$m' module (python3-$m; make deps)" >&2; exit 1; }
done
mkdir -p "$workdir"
tpl=$workdir/template-s$seed
if [ ! -f "$tpl/.complete" ]; then
	rm -rf "$tpl"
	$py "$tools/mkworkspace.py" --seed "$seed" "$tpl"
	touch "$tpl/.complete"
fi
rm -rf "$workdir/run"
mkdir -p "$workdir/run"
i=0
while [ $i -lt "$n" ]; do
	sb=$workdir/run/sb-$i
	cp -a "$tpl" "$sb"
	rm -f "$sb/.complete"
	$py -m venv --without-pip --system-site-packages "$sb/venv"
	i=$((i + 1))
done
