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
import struct
import sys

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
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:3] == b"BZh":
        return bz2.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data)
    if data[:3] == b"\x5d\x00\x00":
        return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(data)
    fail("payload compressed as %r, which Python cannot decompress (gzip, bzip2, xz, lzma)"
         % data[:4])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    elf = payload(open(sys.argv[1], "rb").read())
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        fail("the payload is not a little-endian ELF64")
    phoff, = struct.unpack_from("<Q", elf, 32)
    phentsize, phnum = struct.unpack_from("<HH", elf, 54)
    phdrs = [list(struct.unpack_from("<IIQQQQQQ", elf, phoff + i * phentsize))
             for i in range(phnum)]
    keep = [p for p in phdrs if p[0] in (PT_LOAD, PT_NOTE)]
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
        p[2], p[5] = pos, len(data)
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
    open(sys.argv[2], "wb").write(out)


if __name__ == "__main__":
    main()
