#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of Tempo's Linux test initramfs (busybox sh, PID 1).
#
# It prints its result lines through /dev/kmsg at level 2 (KERN_CRIT), so
# they reach whatever console the kernel has, including a boot console kept
# with keep_bootcon when 8250.nr_uarts=0 leaves no ttyS0 (then /dev/console
# cannot be opened at all). Each line therefore appears on the serial port
# after the kernel's "[    t.tttttt] " time stamp:
#   LINUX_INIT cpus=N
#   LINUX_CLOCKEVENT <clockevent0/current_device>
#   LINUX_CLOCKSOURCE <clocksource0/current_clocksource>
#   LINUX_CYCLICTEST_OUT <each line cyclictest printed, but its histogram's buckets>
#   LINUX_TIMER_IRQS events=N   (CPU 0's local timer interrupts during cyclictest)
#   LINUX_CYCLICTEST loops=N min_us=A avg_us=B max_us=C p99_us=D p999_us=E overflows=F
#   LINUX_DONE
# then powers the machine off, or with shell=ttyS0 on the command line starts
#   LINUX_SHELL tty=ttyS0
# and an interactive busybox shell on /dev/ttyS0 (the operator's console, see
# docs/operating.md), again after each exit; "poweroff -f" there ends it.
# cyclictest_loops=N on the kernel command line
# sets cyclictest's loop count (default 1000; 0 skips cyclictest). It runs as
# "cyclictest -m -q -t1 -a 0 -p80 -i 1000 -l N -h 2000" (rt-tests 2.x dropped -n:
# clock_nanosleep is its only mode). The histogram (1 us buckets up to 2 ms;
# F is how many wake-ups were later than that) gives the 99th and 99.9th
# percentiles: with a few hundred wake-ups a run, the maximum is one
# wake-up and the percentiles say how the tail is made.
# chan_test=ITEM[;ITEM...] on the command line runs the channel checks before
# cyclictest (guests/linux/README.md). An ITEM is words joined by commas: the
# arguments of /bin/tempo-chan, e.g.
#   chan_test=info,link;echo,--timeout-ms,60000,link,1000
# or insmod[,PARAM=VALUE...], rmmod, unbind,SLOT, bind,SLOT (the tempo_chan
# driver's sysfs files), sleep,SECONDS, bg,ARGS... (tempo-chan ARGS in the
# background) and waitbg (wait for those and report them; also done at the
# end). /init loads /lib/modules/tempo_chan.ko before the first item unless an
# item is an insmod.
# It prints
#   LINUX_CHAN_MODULE insmod rc=N devices=NAME,...   (and the probe's kernel lines
#   LINUX_CHAN_KLOG <line>)
#   LINUX_CHAN <each line the item printed>
#   LINUX_CHAN_RC rc=N cmd=<ITEM's words>
#   LINUX_CHAN_DONE ok=N failed=N
# tempo.ne2k=1 on the command line drives an assigned PCI NE2000 (Bochs'
# ne2k, docs/devices.md) before cyclictest: /lib/modules/8390.ko and
# ne2k-pci.ko loaded, eth0 up at 10.0.2.15/24 with a static neighbour
# 10.0.2.2 (no peer answers, so no ARP is waited for), 50 pings to it 50 ms
# apart (each a frame the card sends and a TX-complete interrupt), then
#   LINUX_NE2K_OUT <what eth0's set-up printed, and the kernel's lines on it>
#   LINUX_NE2K_IRQ <each /proc/interrupts line: the header and the card's>
#   NE2K bound=0|1 slot=SSSS:BB:DD.F up=0|1 irq=N tx_packets=N interrupts_cpu0=N
# (interrupts_cpu0: the card's interrupts CPU 0 took, all of them since the
# driver asked for its line when eth0 went up).
PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH
/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/shm
mount -t tmpfs tmpfs /dev/shm		# cyclictest's shm_open
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# Stray output goes to the kernel log (dmesg) at the default level.
exec </dev/null >/dev/kmsg 2>&1
# Userspace writes to /dev/kmsg are rate-limited (10 lines per 5 s) unless on.
echo on > /proc/sys/kernel/printk_devkmsg 2>/dev/null

say() {
	echo "<2>$*" > /dev/kmsg
}

loops=1000
shell=
chan_test=
ne2k=
for word in $(cat /proc/cmdline); do
	case $word in
	cyclictest_loops=*) loops=${word#cyclictest_loops=} ;;
	shell=*) shell=${word#shell=} ;;
	chan_test=*) chan_test=${word#chan_test=} ;;
	tempo.ne2k=*) ne2k=${word#tempo.ne2k=} ;;
	esac
done
case $loops in
'' | *[!0-9]*) loops=1000 ;;
esac

cpus=$(grep -c '^processor' /proc/cpuinfo)
say "LINUX_INIT cpus=$cpus"
say "LINUX_CLOCKEVENT $(cat /sys/devices/system/clockevents/clockevent0/current_device 2>/dev/null || echo none)"
say "LINUX_CLOCKSOURCE $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo none)"

# chan_item ITEM: one item of chan_test= (see the top); counts it in
# chan_ok or chan_failed
chan_item() {
	klog0=$(dmesg | wc -l)
	set -f
	old_ifs=$IFS
	IFS=,
	# shellcheck disable=SC2086 # split at the commas, no globbing
	set -- $1
	IFS=$old_ifs
	set +f
	: > /tmp/chan.out
	case $1 in
	insmod)
		shift
		insmod /lib/modules/tempo_chan.ko "$@" > /tmp/chan.out 2>&1
		rc=$?
		devices=
		for dev in /dev/tempo/*; do
			[ -e "$dev" ] && devices="$devices${devices:+,}${dev#/dev/tempo/}"
		done
		say "LINUX_CHAN_MODULE insmod rc=$rc devices=${devices:-none}"
		set -- insmod "$@"
		;;
	rmmod)
		rmmod tempo_chan > /tmp/chan.out 2>&1
		rc=$?
		say "LINUX_CHAN_MODULE rmmod rc=$rc"
		;;
	unbind | bind)
		rc=0
		echo "$2" > "/sys/bus/pci/drivers/tempo_chan/$1" 2> /tmp/chan.out || rc=1
		;;
	sleep)
		sleep "$2" > /tmp/chan.out 2>&1
		rc=$?
		;;
	stats)
		# under Tempo: a VCPU_STATS line for this vCPU (CPU 0), to window exits
		taskset -c 0 tempo-stats > /tmp/chan.out 2>&1
		rc=$?
		;;
	bg)
		# tempo-chan in the background; waitbg (or the end) reports it
		shift
		chan_nbg=$((chan_nbg + 1))
		tempo-chan "$@" > "/tmp/chan.bg.$chan_nbg" 2>&1 &
		chan_bg="$chan_bg $!:$chan_nbg"
		rc=0
		set -- bg "$@"
		;;
	waitbg)
		# the background items, in order: their lines and status
		rc=0
		for job in $chan_bg; do
			wait "${job%%:*}"
			jrc=$?
			cat "/tmp/chan.bg.${job#*:}" >> /tmp/chan.out
			echo "bg ${job#*:} rc=$jrc" >> /tmp/chan.out
			[ "$jrc" -eq 0 ] || rc=$jrc
		done
		chan_bg=
		;;
	*)
		tempo-chan "$@" > /tmp/chan.out 2>&1
		rc=$?
		;;
	esac
	while IFS= read -r line; do
		say "LINUX_CHAN $line"
	done < /tmp/chan.out
	# what the module said meanwhile (probe, remove), shown even with quiet
	dmesg | tail -n "+$((klog0 + 1))" | grep 'tempo_chan' | grep -v LINUX_CHAN > /tmp/chan.klog
	while IFS= read -r line; do
		say "LINUX_CHAN_KLOG $line"
	done < /tmp/chan.klog
	say "LINUX_CHAN_RC rc=$rc cmd=$*"
	if [ "$rc" -eq 0 ]; then
		chan_ok=$((chan_ok + 1))
	else
		chan_failed=$((chan_failed + 1))
	fi
}

if [ -n "$chan_test" ]; then
	chan_ok=0
	chan_failed=0
	chan_nbg=0
	chan_bg=
	case ";$chan_test;" in
	*";insmod;"* | *";insmod,"*) ;;
	*) chan_item insmod ;;
	esac
	set -f
	old_ifs=$IFS
	IFS=';'
	# shellcheck disable=SC2086 # split at the semicolons
	set -- $chan_test
	IFS=$old_ifs
	set +f
	for item in "$@"; do
		[ -n "$item" ] && chan_item "$item"
	done
	[ -z "$chan_bg" ] || chan_item waitbg
	say "LINUX_CHAN_DONE ok=$chan_ok failed=$chan_failed"
fi

# ne2k_test: the NE2000 the partition owns (tempo.ne2k=1, see the top)
ne2k_test() {
	bound=0
	up=0
	irq=none
	tx=0
	cpu0=0
	if ! insmod /lib/modules/8390.ko || ! insmod /lib/modules/ne2k-pci.ko; then
		say "LINUX_NE2K insmod failed"
	fi
	slot=none
	for dev in /sys/bus/pci/drivers/ne2k-pci/0000:*; do
		[ -e "$dev" ] && bound=1 slot=${dev##*/}
	done
	klog0=$(dmesg | wc -l)
	if [ -e /sys/class/net/eth0 ]; then
		{
			ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 &&
				arp -i eth0 -s 10.0.2.2 52:54:00:12:34:57
		} > /tmp/ne2k.out 2>&1 || echo "eth0 setup failed, rc $?" >> /tmp/ne2k.out
		# IFF_UP: the 8390 senses no carrier, so operstate stays "unknown"
		flags=$(cat /sys/class/net/eth0/flags 2>/dev/null || echo 0)
		[ $((flags & 1)) -eq 1 ] && up=1
		irq=$(cat /sys/class/net/eth0/device/irq 2>/dev/null || echo none)
		ping -c 50 -i 0.05 -W 1 -w 30 10.0.2.2 > /tmp/ping.txt 2>&1
		tx=$(cat /sys/class/net/eth0/statistics/tx_packets 2>/dev/null || echo 0)
	fi
	# what failed, if anything: the commands' words and the kernel's since
	dmesg | tail -n "+$((klog0 + 1))" | grep -iE 'eth0|ne2k|8390|irq' >> /tmp/ne2k.out
	[ "$up" = 1 ] || dmesg | grep -E 'pci|PCI|IRQ|IOAPIC|INT_SRC' | head -n 80 >> /tmp/ne2k.out
	while IFS= read -r line; do
		say "LINUX_NE2K_OUT $line"
	done < /tmp/ne2k.out
	while IFS= read -r line; do
		case $line in
		*CPU0*) say "LINUX_NE2K_IRQ $line" ;;
		*ne2k* | *eth0*)
			say "LINUX_NE2K_IRQ $line"
			# shellcheck disable=SC2086 # split into the IRQ and its counts
			set -- $line
			[ "$2" -ge 0 ] 2>/dev/null && cpu0=$((cpu0 + $2))
			;;
		esac
	done < /proc/interrupts
	say "NE2K bound=$bound slot=$slot up=$up irq=$irq tx_packets=$tx interrupts_cpu0=$cpu0"
}

[ "$ne2k" = 1 ] && ne2k_test

# the local timer interrupts so far (the LOC row of /proc/interrupts)
timer_irqs() {
	sed -n 's/^ *LOC: *\([0-9]*\).*/\1/p' /proc/interrupts
}

# Everything measured runs on CPU 0: cyclictest's thread (-a 0), both
# tempo-stats snapshots (the same vCPU's counters) and the LOC count read.
if [ "$loops" -gt 0 ]; then
	irq0=$(timer_irqs)
	taskset -c 0 tempo-stats	# under Tempo: a VCPU_STATS line opens the window
	cyclictest -m -q -t1 -a 0 -p80 -i 1000 -l "$loops" -h 2000 > /tmp/cyc.txt 2>&1
	rc=$?
	taskset -c 0 tempo-stats	# ... and one closes it
	irq1=$(timer_irqs)
	say "LINUX_TIMER_IRQS events=$((irq1 - irq0))"
	while IFS= read -r line; do
		case $line in
		[0-9]*) ;;	# a histogram bucket: in the percentiles below
		*) say "LINUX_CYCLICTEST_OUT $line" ;;
		esac
	done < /tmp/cyc.txt
	# "000083 000012": 12 wake-ups 83 us late; "# Total: 000001000",
	# "# Min Latencies: 00069" (Avg, Max), "# Histogram Overflows: 00000"
	# shellcheck disable=SC2046 # split into the seven numbers
	set -- $(awk '
		function num(s) { sub(/^0+/, "", s); return s + 0 }	# busybox awk: 0500 is octal
		/^[0-9]+ [0-9]+$/ { b = num($1); n[b] = num($2); if (b > top) top = b }
		/^# Total:/ { total = num($3) }
		/^# Min Latencies:/ { mn = num($4) }
		/^# Avg Latencies:/ { av = num($4) }
		/^# Max Latencies:/ { mx = num($4) }
		/^# Histogram Overflows:/ { over = num($4) }
		function pct(q,   need, c, i) {	# the smallest latency with q of the wake-ups at or below it
			need = int(total * q / 1000 + 0.999); c = 0
			for (i = 0; i <= top; i++) { c += n[i]; if (c >= need) return i }
			return mx	# in the overflow: the maximum says at least as much
		}
		END { if (total > 0) print total, mn, av, mx, pct(990), pct(999), over }' /tmp/cyc.txt)
	if [ $# -eq 7 ]; then
		say "LINUX_CYCLICTEST loops=$1 min_us=$2 avg_us=$3 max_us=$4 p99_us=$5 p999_us=$6 overflows=$7"
	else
		say "LINUX_CYCLICTEST loops=0 min_us=na avg_us=na max_us=na error=rc$rc"
	fi
fi
say "LINUX_DONE"
case $shell in
tty[A-Za-z]*[0-9])
	if [ -c "/dev/$shell" ]; then
		say "LINUX_SHELL tty=$shell"
		# a session of its own with the tty as its controlling terminal
		while :; do
			setsid sh -c "exec sh -i < /dev/$shell > /dev/$shell 2>&1"
		done
	fi
	say "LINUX_SHELL_FAILED tty=$shell (no such device)"
	;;
esac
sync
poweroff -f
# poweroff -f returns only if the kernel could not power off.
say "LINUX_POWEROFF_FAILED"
while :; do sleep 1000; done
