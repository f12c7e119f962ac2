#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make console: boot an image in Bochs with Tempo's serial console in this
# terminal (tools/serial-term.py on COM1's loopback socket), as QEMU's
# -serial mon:stdio would. Ctrl-T m opens Tempo's monitor; Ctrl-] quits and
# ends Bochs.
#   boot/console-demo.sh OUT_DIR RUN_SH_ARGS...
set -uo pipefail

out=$1
shift
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	{ echo "console-demo: no free loopback port" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/serial.txt" "$out/serial.done"
tests/emu/run.sh --emu bochs --out "$out" --com1-socket "$port" "$@" > "$out/run.txt" 2>&1 &
run=$!
tools/serial-term.py "$port" "$out"
rc=$?
# Ctrl-] before the end: the emulator goes too (its process group: run.sh,
# timeout, Bochs)
if kill -0 "$run" 2> /dev/null; then
	pkill -TERM -P "$run" 2> /dev/null
	kill "$run" 2> /dev/null
fi
wait "$run" 2> /dev/null
echo "console-demo: $(tail -n 1 "$out/run.txt")"
exit $rc
