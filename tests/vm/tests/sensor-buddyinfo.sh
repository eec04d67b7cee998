# On an idle guest the sensor agrees with /proc/buddyinfo and with debugfs
# extfrag/unusable_index, read back to back.
. /tests/lib.sh

check "insmod agentmm.ko" load_agentmm interval_ms=10

# Per-order counts of one zone from /proc/buddyinfo ("node0-DMA32").
buddy_row() {
	awk -v z="$1" '{ sub(",", "", $2); if ("node" $2 "-" $4 == z) {
		s = ""; for (i = 5; i <= NF; i++) s = s (i > 5 ? " " : "") $i; print s } }' /proc/buddyinfo
}

# Every order within slack of the range seen in two buddyinfo reads taken
# around the sensor read: an idle guest still allocates a little.
within() {
	awk -v a="$1" -v s="$2" -v b="$3" 'BEGIN {
		na = split(a, A); ns = split(s, S); split(b, B)
		if (na != ns) exit 1
		for (i = 1; i <= na; i++) {
			lo = A[i] < B[i] ? A[i] : B[i]; hi = A[i] < B[i] ? B[i] : A[i]
			slack = i <= 3 ? 16 : 2
			if (S[i] < lo - slack || S[i] > hi + slack) exit 1
		}
	}'
}

for z in $(ls $AGENTMM_SYS/sensor/zones); do
	ok=0
	for attempt in 1 2 3 4 5; do
		wait_sample
		before=$(buddy_row "$z")
		mine=$(cat $AGENTMM_SYS/sensor/zones/$z/free_blocks)
		after=$(buddy_row "$z")
		if within "$before" "$mine" "$after"; then ok=1; break; fi
		log "attempt $attempt $z: buddyinfo [$before] agentmm [$mine] buddyinfo [$after]"
	done
	expect_eq $ok 1 "$z free blocks per order match /proc/buddyinfo"
done

# Unusable free index: compute it per zone from agentmm's own counts with
# the kernel's definition and compare to debugfs, which the kernel computes.
ui=/sys/kernel/debug/extfrag/unusable_index
if [ -r $ui ]; then
	for z in $(ls $AGENTMM_SYS/sensor/zones); do
		ok=0
		for attempt in 1 2 3 4 5; do
			wait_sample
			mine=$(cat $AGENTMM_SYS/sensor/zones/$z/free_blocks)
			kern=$(awk -v z="$z" '{ sub(",", "", $2); if ("node" $2 "-" $4 == z) {
				s = ""; for (i = 5; i <= NF; i++) s = s " " $i * 1000; print s } }' $ui)
			if awk -v m="$mine" -v k="$kern" 'BEGIN {
				# busybox awk has no ^: powers of two by doubling.
				n = split(m, M); split(k, K); free = 0; p = 1
				for (i = 1; i <= n; i++) { P[i] = p; free += M[i] * p; p *= 2 }
				for (o = 0; o < n; o++) {
					suit = 0
					for (i = o + 1; i <= n; i++) suit += M[i] * P[i]
					idx = free ? int((free - suit) * 1000 / free) : 1000
					d = idx - K[o + 1]; if (d < 0) d = -d
					if (d > 5) exit 1
				}
			}'; then ok=1; break; fi
			log "attempt $attempt $z: agentmm [$mine] unusable_index [$kern]"
		done
		expect_eq $ok 1 "$z unusable index matches debugfs extfrag/unusable_index"
	done
else
	log "no $ui; skipping the index comparison"
fi

# The per-size files are the sum over zones of the same arithmetic.
wait_sample
total=$(cat $AGENTMM_SYS/sensor/free_pages)
sum=$(awk '{ p = 1; for (i = 5; i <= NF; i++) { s += $i * p; p *= 2 } }
	END { printf "%d", s }' /proc/buddyinfo)
d=$((total - sum)); [ $d -lt 0 ] && d=$((-d))
expect_cmp $d -le $((8192 / PAGE_KB)) "free_pages within 8 MiB of /proc/buddyinfo's sum ($total vs $sum)"
# servable_pages: per zone, suitable pages capped by the free pages above
# the zone's reserve, in whole blocks. The reserve must be /proc/zoneinfo's
# low watermark plus protection[ZONE_MOVABLE] (the 4th entry on x86_64), and
# every size's servable_pages must follow from one snapshot: the files
# read with the sensor stopped (mode off keeps the last sample; event
# samples would otherwise fall between the reads), sensor/samples the same
# before and after.
zoneinfo_reserved() {	# node zone-name
	awk -v n="$1" -v z="$2" '
		$1 == "Node" { sub(",", "", $2); cur = ($2 == n && $4 == z) }
		cur && $1 == "low" { low = $2 }
		cur && $1 == "protection:" { gsub(/[(),]/, " "); prot = $5 }
		END { printf "%d", low + prot }' /proc/zoneinfo
}
# snapshot: the zone and size lines the deprecated summary had, from the
# one-value files; fails if a sample fell in between.
snapshot() {
	_s0=$(samples)
	for _z in $AGENTMM_SYS/sensor/zones/*; do
		_n=${_z##*/node}
		echo "zone node=${_n%%-*} name=${_n#*-} reserved=$(cat $_z/reserved)" \
			"free_blocks=$(tr ' ' , <$_z/free_blocks)"
	done
	for _d in $AGENTMM_SYS/sensor/sizes/*; do
		[ -d "$_d" ] || continue	# none on a kernel without mTHP
		echo "size kb=${_d##*/} order=$(cat $_d/order)" \
			"available_pages=$(cat $_d/available_pages)" \
			"servable_pages=$(cat $_d/servable_pages)"
	done
	[ "$(samples)" = "$_s0" ]
}
ok=0
for attempt in 1 2 3 4 5; do
	echo observe >$AGENTMM_SYS/mode
	wait_sample
	echo off >$AGENTMM_SYS/mode
	snap=$(snapshot) || { log "attempt $attempt: a sample fell in the snapshot"; continue; }
	bad=
	for zl in $(echo "$snap" | awk '$1 == "zone" { sub("node=", "", $2);
			sub("name=", "", $3); sub("reserved=", "", $4);
			print $2 ":" $3 ":" $4 }'); do
		IFS=: read -r n zn r <<EOF2
$zl
EOF2
		want=$(zoneinfo_reserved "$n" "$zn")
		[ "$r" = "$want" ] || bad="$bad node$n-$zn reserved $r vs zoneinfo $want;"
	done
	bad="$bad$(echo "$snap" | awk '
		# sub() leaves strings: +0 makes every comparison numeric.
		$1 == "zone" { nz++; sub("reserved=", "", $4); R[nz] = $4 + 0
			sub("free_blocks=", "", $5); F[nz] = $5 }
		$1 == "size" { ns++; sub("order=", "", $3); O[ns] = $3 + 0
			for (i = 4; i <= NF; i++) {
				if ($i ~ /^available_pages=/) { sub(/.*=/, "", $i); A[ns] = $i + 0 }
				if ($i ~ /^servable_pages=/) { sub(/.*=/, "", $i); S[ns] = $i + 0 }
			} }
		END {
			for (k = 1; k <= ns; k++) {
				want = 0
				for (z = 1; z <= nz; z++) {
					n = split(F[z], B, ","); free = 0; suit = 0; p = 1
					for (i = 1; i <= n; i++) {
						free += B[i] * p
						if (i - 1 >= O[k]) suit += B[i] * p
						p *= 2
					}
					blk = 1; for (i = 0; i < O[k]; i++) blk *= 2
					cap = free > R[z] ? int((free - R[z]) / blk) * blk : 0
					want += suit < cap ? suit : cap
				}
				if (S[k] != want) printf " order %d servable %d vs %d;", O[k], S[k], want
				if (S[k] > A[k]) printf " order %d servable %d > available %d;", O[k], S[k], A[k]
			}
		}')"
	[ -z "$bad" ] && { ok=1; break; }
	log "attempt $attempt:$bad"
done
echo observe >$AGENTMM_SYS/mode
expect_eq $ok 1 "servable_pages follow from the zones' free blocks and zoneinfo reserves"
finish
