#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tempo's serial console in this terminal: what QEMU's -serial mon:stdio does,
for Bochs, whose COM1 is a TCP server on loopback (tests/emu/run.sh
--com1-socket PORT).

    tools/serial-term.py PORT [OUT_DIR]

Connects to 127.0.0.1:PORT (retrying while Bochs starts), puts this terminal
in raw mode and copies every key to Tempo (Ctrl-T m opens its monitor, Ctrl-T
? lists the console keys) and every byte from Tempo to the terminal. Ctrl-]
quits, as in telnet. With OUT_DIR, what Tempo printed is also appended to
OUT_DIR/serial.txt, and OUT_DIR/serial.done is touched when the line closes
(what run.sh waits for). Exit status 0 when Tempo closed the line or Ctrl-]
was typed, 1 when it could not connect.
"""
import os
import select
import socket
import sys
import termios
import time
import tty

QUIT = 0x1D  # Ctrl-]


def connect(port, wait_s=120):
    deadline = time.time() + wait_s
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            if time.time() > deadline:
                return None
            time.sleep(0.2)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    port = int(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) == 3 else None
    serial = None
    if out:
        os.makedirs(out, exist_ok=True)
        serial = open(os.path.join(out, "serial.txt"), "ab", buffering=0)
    sock = connect(port)
    if sock is None:
        print(f"serial-term: nothing listens on 127.0.0.1:{port}", file=sys.stderr)
        return 1
    sock.setblocking(False)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    saved = termios.tcgetattr(stdin) if os.isatty(stdin) else None
    if saved is not None:
        tty.setraw(stdin)
    os.write(stdout, b"[serial-term: Tempo's console; Ctrl-T m the monitor, Ctrl-] quits]\r\n")
    try:
        while True:
            ready, _, _ = select.select([sock, stdin], [], [])
            if sock in ready:
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    data = None
                if data is None:
                    continue
                if not data:
                    break
                os.write(stdout, data)
                if serial:
                    serial.write(data)
            if stdin in ready:
                keys = os.read(stdin, 1024)
                if not keys or QUIT in keys:
                    keys = keys.split(bytes([QUIT]))[0]
                    if keys:
                        sock.sendall(keys)
                    break
                sock.setblocking(True)
                sock.sendall(keys)
                sock.setblocking(False)
    finally:
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
        sock.close()
        if out:
            open(os.path.join(out, "serial.done"), "w").close()
        os.write(stdout, b"\r\n[serial-term: closed]\r\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
