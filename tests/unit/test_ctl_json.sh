#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The real agentmmctl (build/tools/agentmmctl) on a status and an events
# file as agentmmd writes them, in a state directory of the test's own
# (agentmmctl -c: state_dir), with sandbox names a hostile tenant chose:
# U+009B beside the text \x9b, a bidi override, DEL and ESC, a byte that is
# not UTF-8. `status --json`, `show --json` and `events --json` print the
# exact escapes, and Python's json module reads every name back byte for
# byte (check_json.py). The guest test hostile-json-names does the same
# from real cgroups through the daemon. AGENTMMCTL=PATH tests another
# agentmmctl (the guest's static one: build/guest/bin/agentmmctl).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/check.sh"
ctl=${AGENTMMCTL:-$top/build/tools/agentmmctl}
cj=$top/tests/unit/check_json.py
[ -x "$ctl" ] || { echo "FAIL no $ctl (make tools)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'state_dir = %s\n' "$tmp" >"$tmp/amm.conf"
# names as the daemon writes them (escape.h AMM_ESC_WORD / AMM_ESC_TEXT),
# and their bytes in hex for check_json.py
w_c1='agent.slice/sb\xc2\x9b'	h_c1=$(printf 'agent.slice/sb\302\233' | od -An -tx1 | tr -d ' \n')
w_txt='agent.slice/sb\\x9b'	h_txt=$(printf 'agent.slice/sb\\x9b' | od -An -tx1 | tr -d ' \n')
w_rlo='agent.slice/rlo\xe2\x80\xaegnp'	h_rlo=$(printf 'agent.slice/rlo\342\200\256gnp' | od -An -tx1 | tr -d ' \n')
w_ctl='agent.slice/c\x1b[2J\x7f'	h_ctl=$(printf 'agent.slice/c\033[2J\177' | od -An -tx1 | tr -d ' \n')
w_bad='agent.slice/bad\xff\x9b'	h_bad=$(printf 'agent.slice/bad\377\233' | od -An -tx1 | tr -d ' \n')
# (printf '%s', never echo: dash's echo reads backslashes)
sb() {
	printf 'sandbox name=%s state=ok exempt=0 priority=0 runtime=0 current_mb=1 peak_mb=1 max_mb=max high_mb=0 psi=0.00 tools_running=0 tool_calls=1 retries=0 tools_killed=0 oom_kills=0 forks=0 execs=0 reclaim_stall_ms=0 high_events=0 task_drops=0 events_limited=0\n' "$1"
}
{
	printf 'daemon version=test pid=%s interval_ms=1000 uptime_s=1 bpf_programs=0 struct_ops=0 ringbuf_drops=0 task_drops=0\n' $$
	for n in "$w_c1" "$w_txt" "$w_rlo" "$w_ctl" "$w_bad"; do sb "$n"; done
	printf 'tool sandbox=%s pid=7 state=done duration_ms=1 peak_mb=1 retry=0 cgroup=- cmd=%s\n' \
		"$w_c1" 'run \xc2\x9b[31m \\x9b'
} >"$tmp/status"
# one event per sandbox (printf repeats its format for each argument)
printf '1700000000000\tkill\t%s\ttool\\x1b\t7\t0\tkilled \\xe2\\x80\\xae\n' \
	"$w_c1" "$w_bad" "$w_txt" >"$tmp/events"

"$ctl" -c "$tmp/amm.conf" status --json >"$tmp/s.json" 2>"$tmp/err"
expect_eq $? 0 "status --json exits 0"
check "U+009B as \\u009b" grep -qF '"name":"agent.slice/sb\u009b"' "$tmp/s.json"
check "the text \\x9b with its backslash escaped" grep -qF '"name":"agent.slice/sb\\x9b"' "$tmp/s.json"
check "U+202E as \\u202e" grep -qF '"name":"agent.slice/rlo\u202egnp"' "$tmp/s.json"
check "ESC and DEL as \\u001b, \\u007f" grep -qF '"name":"agent.slice/c\u001b[2J\u007f"' "$tmp/s.json"
check "bytes not UTF-8 as \\udcff\\udc9b" grep -qF '"name":"agent.slice/bad\udcff\udc9b"' "$tmp/s.json"
check "a tool's command escaped the same way" grep -qF '"cmd":"run \u009b[31m \\x9b"' "$tmp/s.json"
check "nothing in the old form (a byte as the text \\xHH)" sh -c "! grep -qF '\\\\xc2' '$tmp/s.json'"
check "Python reads every name back exactly" \
	/usr/bin/python3 "$cj" status "$tmp/s.json" "$h_c1" "$h_txt" "$h_rlo" "$h_ctl" "$h_bad"

"$ctl" -c "$tmp/amm.conf" show --json "$(printf 'agent.slice/sb\302\233')" >"$tmp/show.json" 2>"$tmp/err"
expect_eq $? 0 "show --json of the U+009B sandbox exits 0"
check "show picks that one and not the text \\x9b" \
	/usr/bin/python3 "$cj" status "$tmp/show.json" "$h_c1"

"$ctl" -c "$tmp/amm.conf" events --json >"$tmp/e.json" 2>"$tmp/err"
expect_eq $? 0 "events --json exits 0"
check "events: sandbox and tool escaped" \
	grep -qF '"sandbox":"agent.slice/sb\u009b","tool":"tool\u001b"' "$tmp/e.json"
check "events: message escaped" grep -qF '"message":"killed \u202e"' "$tmp/e.json"
check "events: Python reads every sandbox back exactly" \
	/usr/bin/python3 "$cj" events "$tmp/e.json" "$h_c1" "$h_bad" "$h_txt"
finish
