# Sandbox names a tenant chose, through the daemon and the real agentmmctl:
# `status --json` and `show --json` write C1 controls, bidi controls, C0
# and DEL as \u escapes and a byte that is not UTF-8 as \udcHH, so a JSON
# parser gets every name back exactly, and a name holding U+009B and one
# holding the text \x9b print differently (they once differed only by
# the text \xc2, and a name of those texts printed as U+009B did). A tool
# call's command and cgroup name the same. The text table keeps its own
# escapes: no raw control byte. (Python's parser reads the same JSON on
# the host: tests/unit/test_ctl_json.sh; the guest has no Python.)
. /tests/daemon-lib.sh

C1=$(printf '\302\233')		# U+009B, a one-byte CSI
N_C1="sb$C1"
N_TXT='sb\x9b'			# the four characters \x9b
N_BAD=$(printf 'bad\377\233')	# bytes that are not UTF-8
N_RLO=$(printf 'rlo\342\200\256gnp')	# U+202E RIGHT-TO-LEFT OVERRIDE
N_CTL=$(printf 'c\033[2J\177')	# ESC [2J, DEL
# 255 bytes, the longest a cgroup name may be: 127 x U+009B, then x
N_LONG=$(printf '\302\233%.0s' $(seq 127))x

make_pool
for n in "$N_C1" "$N_TXT" "$N_BAD" "$N_RLO" "$N_CTL" "$N_LONG"; do
	check "sandbox cgroup made ($(printf '%s' "$n" | wc -c) bytes)" mkdir -p "$AS/$n/runtime"
	echo +memory >"$AS/$n/cgroup.subtree_control"
	sh -c 'echo $$ >"$1/cgroup.procs"; exec memhog --hold 4' - "$AS/$n/runtime" &
done
start_daemon 6 "daemon adopts all six" <<CONF
interval_ms = 200
throttle = 0
freeze = 0
kill = 0
reclaim = 0
CONF

# a tool call in the U+009B sandbox, its cgroup and an argument named so too
agentmmctl -c /tmp/amm.conf exec --name "n$C1" "agent.slice/$N_C1" -- \
	sh -c 'sleep 0.3; exit 0' - "arg${C1}end"
expect_eq $? 0 "tool call in the U+009B sandbox ran"
check "its tool call recorded" wait_for 10 grep -q '^tool .*cgroup=tool-n' /run/agentmm/status

agentmmctl -c /tmp/amm.conf status --json >/tmp/s.json
expect_eq $? 0 "status --json"
has() { grep -qF "$1" /tmp/s.json; }
check "U+009B as \\u009b" has '"name":"agent.slice/sb\u009b"'
check "the text \\x9b, its backslash escaped" has '"name":"agent.slice/sb\\x9b"'
check "bytes not UTF-8 as \\udcff\\udc9b" has '"name":"agent.slice/bad\udcff\udc9b"'
check "U+202E as \\u202e" has '"name":"agent.slice/rlo\u202egnp"'
check "ESC, DEL as \\u001b, \\u007f" has '"name":"agent.slice/c\u001b[2J\u007f"'
LONG_JSON=$(printf '\\u009b%.0s' $(seq 127))x
check "the 255-byte name in full" has "\"name\":\"agent.slice/$LONG_JSON\""
check "the tool's cgroup" has '"cgroup":"tool-n\u009b"'
check "the tool's command" has "arg\\u009bend"
check "no raw C1 byte" sh -c "! grep -q '$C1' /tmp/s.json"
check "no raw ESC" sh -c "! grep -q \"\$(printf '\\033')\" /tmp/s.json"
check "nothing in the old form (a byte as the text \\xHH)" sh -c "! grep -qF 'xc2' /tmp/s.json"
grep -o '"sandboxes":.*' /tmp/s.json | cut -c 1-400 | sed 's/^/    /'

agentmmctl -c /tmp/amm.conf show --json "agent.slice/$N_TXT" >/tmp/show.json
expect_eq $? 0 "show --json of the text-\\x9b sandbox"
check "show picks it, not the U+009B one" sh -c \
	"grep -qF '\"name\":\"agent.slice/sb\\\\x9b\"' /tmp/show.json && ! grep -qF 'u009b' /tmp/show.json"

# the table: escaped its own way, the two names still told apart
agentmmctl -c /tmp/amm.conf status >/tmp/s.txt
check "table: U+009B as \\xc2\\x9b" grep -qF 'agent.slice/sb\xc2\x9b ' /tmp/s.txt
check "table: the text \\x9b with its backslash doubled" grep -qF 'agent.slice/sb\\x9b ' /tmp/s.txt
check "table: no raw C1 or ESC byte" sh -c \
	"! grep -q '$C1' /tmp/s.txt && ! grep -q \"\$(printf '\\033')\" /tmp/s.txt"
cleanup
finish
