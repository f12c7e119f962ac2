#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make console's terminal bridge (tools/serial-term.py) on a pseudo-terminal
# against a stand-in for Bochs' COM1 socket: the terminal is raw (a key goes
# out at once, Ctrl-T included, no echo of its own), what the far end sends
# comes out, serial.txt keeps it, and Ctrl-] quits with the terminal restored.
#   tests/tools/test_console_term.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/tempo-term.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import os, pty, select, socket, sys, time

work = sys.argv[1]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
port = srv.getsockname()[1]
pid, fd = pty.fork()
if pid == 0:
    os.execvp("python3", ["python3", "tools/serial-term.py", str(port), work])
conn, _ = srv.accept()
conn.settimeout(10)
failed = []

def read_until(want, secs=10):
    # select first: a read with nothing to read would block past the deadline
    buf, end = b"", time.time() + secs
    while want not in buf:
        left = end - time.time()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        buf += data
    return buf

def check(name, ok, why=""):
    print(f"{'PASS' if ok else 'FAIL'} {name}{'' if ok else ': ' + why}")
    if not ok:
        failed.append(name)

read_until(b"Ctrl-] quits")
conn.sendall(b"Tempo hypervisor test\r\n")
got = read_until(b"test\r\n")
check("term_output", b"Tempo hypervisor test\r\n" in got, repr(got))
os.write(fd, b"\x14m")            # Ctrl-T m: raw, so both bytes go out, unechoed
got = b""
end = time.time() + 10
while len(got) < 2 and time.time() < end:
    got += conn.recv(16)
check("term_raw_keys", got == b"\x14m", repr(got))
os.write(fd, b"list\r")
got = b""
end = time.time() + 10
while len(got) < 5 and time.time() < end:
    got += conn.recv(16)
check("term_line", got == b"list\r", repr(got))
echoed = read_until(b"list", 1)
check("term_no_local_echo", b"list" not in echoed, repr(echoed))
os.write(fd, b"\x1d")              # Ctrl-]
read_until(b"closed", 10)
_, status = os.waitpid(pid, 0)
check("term_quit", os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, str(status))
serial = open(os.path.join(work, "serial.txt"), "rb").read()
check("term_serial_txt", serial == b"Tempo hypervisor test\r\n" and
      os.path.exists(os.path.join(work, "serial.done")), repr(serial))
sys.exit(1 if failed else 0)
PY
