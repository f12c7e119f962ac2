#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run a command on a pseudo-terminal of its own and copy what it writes
there to standard output, until it exits; exit with its status.

Bochs' only headless display here is `term` (curses), which wants a
terminal. script(1) gave it one, but long runs (7-35 min) stopped for good:
Bochs asleep in n_tty_write, script polling with nothing to read, XON/XOFF
off. Here the command's input is /dev/null, its output the terminal, whose
window size is set (script left 0x0), and the proxy only ever reads.

    tests/emu/ptyrun.py COMMAND [ARG...]
"""
import fcntl
import os
import pty
import signal
import struct
import sys
import termios


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: ptyrun.py COMMAND [ARG...]\n")
        return 2
    pid, fd = pty.fork()
    if pid == 0:
        # Input from /dev/null: curses' reads return at once. Left on the
        # terminal, each poll for a key waits out its timeout, and Bochs,
        # which polls often, runs many times slower.
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        try:
            os.execvp(sys.argv[1], sys.argv[1:])
        finally:
            os._exit(127)
    # 25 rows of 80 columns, as a VGA text screen
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 25, 80, 0, 0))

    def stop(signum, frame):
        try:
            os.killpg(pid, signal.SIGTERM)
        except OSError:
            pass
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    out = sys.stdout.buffer
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:		# EIO: the last writer closed the terminal
            break
        if not data:
            break
        out.write(data)
        out.flush()
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())
