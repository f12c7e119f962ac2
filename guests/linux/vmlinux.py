#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The uncompressed kernel inside a bzImage, as a small ELF Tempo boots.

    guests/linux/vmlinux.py BZIMAGE OUT

A bzImage's payload (setup header: payload_offset, payload_length) is the
kernel's vmlinux, an ELF, compressed. Tempo can boot that ELF directly
(docs/linux.md, "vmlinux"), where it does the decompressor's last step
itself: each PT_LOAD where it is linked, then the 64-bit entry. Written
here: the ELF header, the PT_LOAD and PT_NOTE program headers (the "Linux"
notes are how Tempo knows the image), and each segment's bytes without its
zero tail (its memory size is kept, so Tempo zeroes that: .bss, .brk). No
section headers. Payloads compressed with gzip, bzip2, xz or lzma (Python's
standard library); any other is refused by name.
"""
import bz2
import gzip
import lzma
import os
import struct
import sys
import zlib

PT_LOAD, PT_NOTE = 1, 4


def fail(msg):
    sys.exit("vmlinux.py: " + msg)


def payload(img):
    if len(img) < 0x250 or img[0x202:0x206] != b"HdrS":
        fail("not a bzImage (no HdrS at 0x202)")
    if struct.unpack_from("<H", img, 0x206)[0] < 0x208:
        fail("boot protocol before 2.08: no payload_offset")
    sects = img[0x1F1] or 4
    off, length = struct.unpack_from("<II", img, 0x248)
    start = (sects + 1) * 512 + off
    data = img[start:start + length]
    if len(data) != length:
        fail("payload runs past the file: truncated bzImage")
    try:
        if data[:2] == b"\x1f\x8b":
            return gzip.decompress(data)
        if data[:3] == b"BZh":
            return bz2.decompress(data)
        for magic, fmt in ((b"\xfd7zXZ\x00", lzma.FORMAT_XZ), (b"\x5d\x00\x00", lzma.FORMAT_ALONE)):
            if data.startswith(magic):
                dec = lzma.LZMADecompressor(format=fmt)
                out = dec.decompress(data)
                # a stream cut short decodes without complaint: its end must be there
                if not dec.eof:
                    fail("the payload's stream ends early: truncated bzImage")
                return out
    except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError) as e:
        fail("the payload does not decompress: %s" % e)
    fail("payload compressed as %r, which Python cannot decompress (gzip, bzip2, xz, lzma)"
         % data[:4])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    elf = payload(open(sys.argv[1], "rb").read())
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        fail("the payload is not a little-endian ELF64")
    if len(elf) < 64:
        fail("the payload is too short for an ELF header")
    phoff, = struct.unpack_from("<Q", elf, 32)
    phentsize, phnum = struct.unpack_from("<HH", elf, 54)
    if phentsize < 56 or phoff + phnum * phentsize > len(elf):
        fail("the payload's program headers lie outside it")
    phdrs = [list(struct.unpack_from("<IIQQQQQQ", elf, phoff + i * phentsize))
             for i in range(phnum)]
    keep = [p for p in phdrs if p[0] in (PT_LOAD, PT_NOTE)]
    for p in keep:
        if p[2] + p[5] > len(elf) or p[5] > p[6]:
            fail("a segment at file offset 0x%x (0x%x bytes) lies outside the payload"
                 % (p[2], p[5]))
    if not any(p[0] == PT_NOTE for p in keep):
        fail("the payload has no PT_NOTE: Tempo would not know it as Linux")
    out = bytearray(elf[:64])
    struct.pack_into("<QQIHHHHHH", out, 32, 64, 0, struct.unpack_from("<I", elf, 48)[0],
                     64, 56, len(keep), 64, 0, 0)
    pos = 64 + 56 * len(keep)
    body, where = bytearray(), {}
    for p in keep:
        if p[0] != PT_LOAD:
            continue
        data = elf[p[2]:p[2] + p[5]].rstrip(b"\0")
        pos = (pos + 4095) & ~4095
        body += b"\0" * (pos - 64 - 56 * len(keep) - len(body))
        where[id(p)] = (p[2], pos)
        body += data
        # p_align: the new offsets agree with the addresses modulo a page only
        p[2], p[5], p[7] = pos, len(data), 4096
        pos += len(data)
    for p in keep:
        if p[0] != PT_NOTE:
            continue
        # inside a PT_LOAD's file bytes: at the same place in its new copy
        for q in keep:
            if q[0] == PT_LOAD and id(q) in where:
                old, new = where[id(q)]
                if old <= p[2] and p[2] + p[5] <= old + q[5]:
                    p[2] = new + p[2] - old
                    break
        else:
            fail("a PT_NOTE outside the loaded segments")
    for p in keep:
        out += struct.pack("<IIQQQQQQ", *p)
    out += body
    # whole or not at all: make takes a file that exists for one made
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, sys.argv[2])


if __name__ == "__main__":
    main()
