# Root writes only where it means to: a state directory someone else could
# write to is refused at start, and links planted where the daemon writes
# (its lock file, a temporary file next to its pid file) are never
# followed: their targets stay as they were.
. /tests/daemon-lib.sh

make_pool
victim=/tmp/amm-victim
echo keep >$victim
SD=/run/amm-state-test
conf() { printf 'state_dir = %s\ninterval_ms = 200\nreclaim = 0\n' "$1" >/tmp/amm.conf; }
refuses() {	# state dir $1: the daemon exits 1 at once, saying why ($2)
	conf "$1"
	timeout 20 agentmmd -c /tmp/amm.conf >$LOG 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "$2" $LOG
}

# a directory others may write to
rm -rf $SD; mkdir -m 0777 $SD
check "a world-writable state_dir is refused" refuses $SD "writable by it alone"
check "nothing was written into it" sh -c "[ -z \"\$(ls -A $SD)\" ]"
# owned by someone else
rm -rf $SD; mkdir -m 0755 $SD; chown 1000 $SD
check "a state_dir owned by another user is refused" refuses $SD "owned by uid 1000"
# a symbolic link to a directory
rm -rf $SD /tmp/amm-real; mkdir -m 0755 /tmp/amm-real; ln -s /tmp/amm-real $SD
check "a state_dir that is a symbolic link is refused" refuses $SD "symbolic link"
# inside a directory anyone may write to, without the sticky bit
rm -rf /run/amm-open; mkdir -m 0777 /run/amm-open
check "a state_dir in an open directory is refused" refuses /run/amm-open/state "anyone may write to"
rm -rf $SD /tmp/amm-real /run/amm-open

# links planted in a good state directory
mkdir -m 0755 $SD
ln -s $victim $SD/agentmmd.lock
check "a planted lock file link is refused" refuses $SD "agentmmd.lock"
check "its target untouched" sh -c "[ \"\$(cat $victim)\" = keep ]"
rm -f $SD/agentmmd.lock
ln -s $victim $SD/agentmmd.pid.tmp
ln -s $victim $SD/status.tmp
conf $SD
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "the daemon starts" wait_for 20 sh -c "[ -s $SD/agentmmd.pid ] && [ ! -L $SD/agentmmd.pid ]"
check "the pid file is a new regular file" sh -c "[ -f $SD/agentmmd.pid ] && [ ! -L $SD/agentmmd.pid ]"
check "status written" wait_for 20 sh -c "[ -f $SD/status ] && [ ! -L $SD/status ]"
check "the planted links' target untouched" sh -c "[ \"\$(cat $victim)\" = keep ]"
kill "$(cat $SD/agentmmd.pid)"
check "daemon stopped" wait_for 10 sh -c "! kill -0 \$(cat $SD/agentmmd.pid) 2>/dev/null"
rm -rf $SD $victim
cleanup
finish
