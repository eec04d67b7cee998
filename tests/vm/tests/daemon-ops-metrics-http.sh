# Metrics over HTTP (metrics_listen): GET /metrics serves the families
# agentmmctl metrics shows, HEAD the length alone, 404 elsewhere, 405 for
# other methods; hostile clients (one holding a half-sent request, 200
# idle connections, clients that never read, garbage) neither stop the
# daemon's ticks nor keep another scrape from an answer; a reload moves
# the port; an address in use is logged once and the daemon runs on;
# SIGTERM closes the port. Busybox wget and nc are the clients.
. /tests/daemon-lib.sh
P1=9471 P2=9472 P3=9473
URL=http://127.0.0.1:$P1/metrics
get() {	# get PORT PATH: the body on stdout, wget's status
	wget -q -O - "http://127.0.0.1:$1$2"
}
raw() {	# raw PORT: stdin sent as is, the answer on stdout
	timeout 5 nc 127.0.0.1 "$1"
}
families() { grep '^# TYPE ' | sort; }
ticks() {	# the daemon's own tick count, from its state file
	awk '$1 == "agentmm_daemon_ticks_total" { print $2 }' /run/agentmm/metrics
}
make_pool
new_sandbox a 16
start_daemon 1 "daemon adopts the sandbox" <<CONF
interval_ms = 200
idle_interval_ms = 200
freeze = 0
kill = 0
reclaim = 0
metrics_interval_s = 1
metrics_listen = 127.0.0.1:$P1
CONF
check "the log says where it serves" grep -q "serving metrics on http://127.0.0.1:$P1/metrics" $LOG
check "GET /metrics answers" wait_for 10 sh -c "wget -q -O /tmp/http.txt $URL && grep -q '^agentmm_daemon_info{version=' /tmp/http.txt"
agentmmctl -c /tmp/amm.conf metrics >/tmp/ctl.txt
F1=$(families </tmp/http.txt) F2=$(families </tmp/ctl.txt)
log "$(echo "$F1" | wc -l) families over HTTP"
check "the same families as agentmmctl metrics" sh -c "[ '$F1' = '$F2' ] && [ \$(echo '$F1' | wc -l) -gt 20 ]"
check "the sandbox's series are there" grep -q '^agentmm_sandbox_memory_bytes{sandbox="agent.slice/a"} [0-9]' /tmp/http.txt
printf 'GET /metrics HTTP/1.0\r\n\r\n' | raw $P1 >/tmp/get.txt
check "Content-Type is the text format 0.0.4" grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' /tmp/get.txt
printf 'HEAD /metrics HTTP/1.0\r\n\r\n' | raw $P1 >/tmp/head.txt
check "HEAD: 200 with a Content-Length" sh -c "head -1 /tmp/head.txt | grep -q ' 200 ' && grep -qi '^Content-Length: [1-9]' /tmp/head.txt"
check "HEAD: no body" sh -c "! grep -q '^# TYPE' /tmp/head.txt"
printf 'GET /other HTTP/1.0\r\n\r\n' | raw $P1 >/tmp/404.txt
check "another path: 404" sh -c "head -1 /tmp/404.txt | grep -q ' 404 '"
printf 'POST /metrics HTTP/1.0\r\nContent-Length: 2\r\n\r\nab' | raw $P1 >/tmp/405.txt
check "POST: 405 with Allow: GET, HEAD" sh -c "head -1 /tmp/405.txt | grep -q ' 405 ' && grep -qi '^Allow: GET, HEAD' /tmp/405.txt"
printf 'DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n' | raw $P1 >/tmp/405b.txt
check "DELETE: 405" sh -c "head -1 /tmp/405b.txt | grep -q ' 405 '"

# a slow client: half a request, held open
(printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n'; sleep 8) | nc 127.0.0.1 $P1 >/dev/null &
SLOW=$!
sleep 0.5
check "a GET answers within a second while a slow client holds a connection" timeout 1 wget -q -O /dev/null $URL
kill $SLOW 2>/dev/null

# 200 connections at once, held idle, and clients that never read
T0=$(ticks)
i=0
while [ $i -lt 200 ]; do
	(sleep 6 | nc 127.0.0.1 $P1 >/dev/null 2>&1) &
	i=$((i + 1))
done
i=0
while [ $i -lt 10 ]; do	# 50 pipelined requests each, their answers unread
	(i=0; while [ $i -lt 50 ]; do printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'; i=$((i + 1)); done; sleep 6) |
		nc 127.0.0.1 $P1 | sleep 7 &
	i=$((i + 1))
done
sleep 1
check "with 200 idle connections open, GET answers within a second" timeout 1 wget -q -O /dev/null $URL
check "...and again (the oldest connections give way)" timeout 1 wget -q -O /dev/null $URL
sleep 2
T1=$(ticks)
log "ticks: $T0 before the flood, $T1 three seconds into it"
check "the daemon ticked on through the flood" sh -c "[ -n '$T0' ] && [ -n '$T1' ] && [ $T1 -gt $((T0 + 5)) ]"
sleep 5
check "after the flood, GET answers" timeout 2 wget -q -O /dev/null $URL

# garbage
printf '\000\377\001 nonsense\r\n\r\n' | raw $P1 >/tmp/g1.txt
check "a garbage request line: 400" sh -c "head -1 /tmp/g1.txt | grep -q ' 400 '"
head -c 20000 /dev/zero | tr '\0' A | raw $P1 >/tmp/g2.txt
check "20 kB with no line end: refused" sh -c "! grep -q '^# TYPE' /tmp/g2.txt"
(printf 'GET /metrics HTTP/1.1\r\nX: '; head -c 20000 /dev/zero | tr '\0' a; printf '\r\n\r\n') | raw $P1 >/tmp/g3.txt
check "a 20 kB header: refused" sh -c "! grep -q '^# TYPE' /tmp/g3.txt"
printf 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\nxx' | raw $P1 >/tmp/g4.txt
check "a 100 MB body announced: refused" sh -c "head -1 /tmp/g4.txt | grep -Eq ' (413|405) '"
check "after the garbage, GET answers" timeout 2 wget -q -O /dev/null $URL
check "the daemon runs" kill -0 "$(cat /run/agentmm/agentmmd.pid)"

# a reload that changes the port
sed -i "s/^metrics_listen = .*/metrics_listen = 127.0.0.1:$P2/" /tmp/amm.conf
kill -HUP "$(cat /run/agentmm/agentmmd.pid)"
check "after a reload, the new port answers" wait_for 10 sh -c "wget -q -O - http://127.0.0.1:$P2/metrics | grep -q '^agentmm_daemon_info'"
check_fails "...and the old one is closed" get $P1 /metrics
# an address in use: one line, and the daemon runs on
mkdir -p /tmp/www
httpd -f -p 127.0.0.1:$P3 -h /tmp/www &
HTTPD=$!
sleep 0.5
sed -i "s/^metrics_listen = .*/metrics_listen = 127.0.0.1:$P3/" /tmp/amm.conf
kill -HUP "$(cat /run/agentmm/agentmmd.pid)"
check "a port in use is logged, with what to do" wait_for 10 grep -q "metrics_listen = 127.0.0.1:$P3: cannot listen: Address .*in use; .*free the port or change metrics_listen" $LOG
T0=$(ticks)
sleep 3
T1=$(ticks)
check "...once" sh -c "[ \$(grep -c 'metrics_listen = 127.0.0.1:$P3: cannot listen' $LOG) -eq 1 ]"
check "...and the daemon ticks on (metrics file updated)" sh -c "[ $T1 -gt $T0 ]"
check_fails "...with no endpoint on the old port" get $P2 /metrics
if [ -e /proc/net/if_inet6 ]; then
	sed -i "s/^metrics_listen = .*/metrics_listen = [::1]:$P1/" /tmp/amm.conf
	kill -HUP "$(cat /run/agentmm/agentmmd.pid)"
	check "[::1]:PORT serves over IPv6" wait_for 10 sh -c "wget -q -O - 'http://[::1]:$P1/metrics' | grep -q '^agentmm_daemon_info'"
	URL="http://[::1]:$P1/metrics"
else
	sed -i "s/^metrics_listen = .*/metrics_listen = 127.0.0.1:$P1/" /tmp/amm.conf
	kill -HUP "$(cat /run/agentmm/agentmmd.pid)"
	check "back on the first port" wait_for 10 sh -c "wget -q -O - $URL | grep -q '^agentmm_daemon_info'"
fi
DP=$(cat /run/agentmm/agentmmd.pid)
kill "$DP"
check "daemon stops on SIGTERM" wait_for 20 sh -c "! kill -0 $DP 2>/dev/null"
check_fails "...and the port is closed" wget -q -O /dev/null "$URL"
kill $HTTPD
cleanup
rm -rf /tmp/www /tmp/http.txt /tmp/ctl.txt /tmp/get.txt /tmp/head.txt /tmp/404.txt /tmp/405.txt /tmp/405b.txt /tmp/g[1-4].txt
finish
