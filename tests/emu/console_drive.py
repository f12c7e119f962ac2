#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Type into Tempo's serial console in Bochs (tests/emu/run.sh --com1-socket PORT).

    console_drive.py PORT OUT_DIR SCRIPT

Connects to Bochs' COM1 (a TCP server on 127.0.0.1:PORT, loopback only),
appends every byte it receives to OUT_DIR/serial.txt, and runs SCRIPT, one
step a line ('#' comments):

    expect REGEX [SECONDS]   wait (default 120 s) until REGEX matches the output
                             after the previous match (Python re, MULTILINE)
    send TEXT                type TEXT; \\r \\n \\t \\xNN are escapes
    flood N                  type N bytes of 'x' as fast as the socket takes them
    sleep SECONDS

Each step prints a DRIVE line (step=N ok=0|1 ...) to OUT_DIR/drive.txt. After
the last step, or the first that fails, it keeps reading until Bochs closes
the line, then touches OUT_DIR/serial.done. Exit status 0 if every step passed.
"""
import codecs
import os
import re
import socket
import sys
import threading
import time


def main():
    port, out, script = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    serial = open(os.path.join(out, "serial.txt"), "wb", buffering=0)
    log = open(os.path.join(out, "drive.txt"), "w", buffering=1)
    sock = None
    deadline = time.time() + 120
    while sock is None:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            if time.time() > deadline:
                log.write("DRIVE step=0 ok=0 what=connect\n")
                open(os.path.join(out, "serial.done"), "w").close()
                return 1
            time.sleep(0.2)
    sock.settimeout(None)
    text = bytearray()
    cond = threading.Condition()
    closed = [False]

    def reader():
        while True:
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            with cond:
                if not data:
                    closed[0] = True
                    cond.notify_all()
                    return
                serial.write(data)
                text.extend(data)
                cond.notify_all()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    pos = 0
    ok = True
    steps = [l.rstrip("\n") for l in open(script)]
    for n, line in enumerate(steps, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        op, _, arg = line.partition(" ")
        if op == "expect":
            m = re.match(r"(.*?)(?:\s+(\d+))?$", arg)
            pattern, secs = m.group(1), int(m.group(2) or 120)
            rx = re.compile(pattern.encode(), re.MULTILINE)
            end = time.time() + secs
            found = None
            with cond:
                while True:
                    found = rx.search(bytes(text).replace(b"\r", b""), pos)
                    if found or closed[0] or time.time() > end:
                        break
                    cond.wait(0.5)
            if not found:
                log.write("DRIVE step=%d ok=0 what=expect pattern=%r\n" % (n, pattern))
                ok = False
                break
            # positions refer to the text without CRs, so keep searching in that
            pos = found.end()
            log.write("DRIVE step=%d ok=1 what=expect pattern=%r\n" % (n, pattern))
        elif op == "send":
            data = codecs.escape_decode(arg.encode())[0]
            for b in data:	# one at a time: a person types
                sock.sendall(bytes([b]))
                time.sleep(0.01)
            log.write("DRIVE step=%d ok=1 what=send bytes=%d\n" % (n, len(data)))
        elif op == "flood":
            sock.sendall(b"x" * int(arg))
            log.write("DRIVE step=%d ok=1 what=flood bytes=%s\n" % (n, arg))
        elif op == "sleep":
            time.sleep(float(arg))
        else:
            log.write("DRIVE step=%d ok=0 what=unknown_step line=%r\n" % (n, line))
            ok = False
            break
    t.join(900)
    open(os.path.join(out, "serial.done"), "w").close()
    log.write("DRIVE done ok=%d\n" % ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
