#!/bin/sh
# The in-guest part of `make vm-check-arm64` (/init of a busybox initramfs
# on Debian's arm64 kernel): agentmm.ko loaded on this kernel's page size,
# its sensor against the kernel's own mTHP sizes, a decision in enforce
# mode among them, unloaded; agentmmd applying that decision to the size
# switches and giving every switch back on exit. Lines start "ARM64 ".
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs /run	# root's alone, as on a host
mount -t tmpfs tmpfs /tmp
CHECK_PREFIX="ARM64 "
. /lib/check.sh
A=/sys/kernel/agentmm T=/sys/kernel/mm/transparent_hugepage
info "kernel $(uname -r) $(uname -m)"
# the sizes anonymous memory can take (a switch of their own); file-only
# sizes (order 1, 8kB with 4K pages) have none
kernel_sizes=$(ls -d $T/hugepages-*kB | while read -r d; do [ -f $d/enabled ] && echo "${d##*/hugepages-}"; done | sort | tr '\n' ' ')
switches() { for d in $T/hugepages-*kB; do [ -f $d/enabled ] && echo "${d##*/}=$(sed 's/.*\[\(.*\)\].*/\1/' $d/enabled)"; done; }
before=$(switches)
check "insmod agentmm.ko" insmod /lib/modules/agentmm.ko
sleep 2
check "the decision is published" grep -Eqx -- '-|[0-9]+(,[0-9]+)*' $A/governor/enabled_kb
expect_eq "$(ls $A/sensor/sizes | sort | tr '\n' ' ')" "$kernel_sizes" "the sensor's sizes are the kernel's hugepages-*kB"
check "mode enforce accepted" sh -c "echo enforce > $A/mode"
sleep 2
en=$(grep -x '[0-9,]*' $A/governor/enabled_kb)
info "decision: mode $(cat $A/mode) ticks $(cat $A/governor/ticks) enabled_kb $en candidates_kb $(cat $A/governor/candidates_kb)"
check "a decision with sizes to enable" [ -n "$en" ]
ok_sizes=1
for kb in $(echo "$en" | tr , ' '); do
	[ -d $T/hugepages-${kb}kB ] || { ok_sizes=0; info "decided ${kb}kB, which this kernel has not"; }
done
check "every decided size is one of the kernel's" [ $ok_sizes = 1 ]
check_fails "a size the kernel has not is refused (-EINVAL)" sh -c "echo 3 > /sys/module/agentmm/parameters/candidates"
# agentmmd applies the decision to the switches, and gives them back
mkdir -p /run/agentmm /etc/agentmm
printf 'governor = auto\ninterval_ms = 100\n' >/tmp/agentmmd.conf
agentmmd -c /tmp/agentmmd.conf >/tmp/agentmmd.log 2>&1 &
pid=$!
n=0; first=${en%%,*}
while [ $n -lt 100 ] && ! grep -q '\[always\]\|\[inherit\]' $T/hugepages-${first}kB/enabled; do sleep 0.1; n=$((n + 1)); done
check "agentmmd applied the decision: hugepages-${first}kB/enabled is on" \
	grep -q '\[always\]\|\[inherit\]' $T/hugepages-${first}kB/enabled
kill -TERM $pid; wait $pid
expect_eq "$(switches)" "$before" "agentmmd gave every switch back on exit"
sed 's/^/    /' /tmp/agentmmd.log | tail -5
check "mode off" sh -c "echo off > $A/mode"
check "rmmod agentmm" rmmod agentmm
check_fails "no kernel report (WARNING, BUG, Oops)" sh -c "dmesg | grep -E 'WARNING|BUG:|Oops|Call trace' | grep ."
result
echo "ARM64 DONE"
poweroff -f
