#!/usr/bin/env python3
"""Check a Mach-O file without a Mac (scripts/release-check.sh): print each slice's
architecture, minimum macOS and signature, and fail unless every slice has an ad-hoc code
signature whose page hashes match the slice's bytes (what the kernel checks as the pages
are loaded), and, with --want ARCH:MIN..., exactly those slices with those minimums.

  macho-check.py FILE [--want arm64:11.0 --want x86_64:10.12]
"""
import hashlib
import struct
import sys

CPU = {0x01000007: "x86_64", 0x0100000C: "arm64"}
LC_CODE_SIGNATURE, LC_VERSION_MIN_MACOSX, LC_BUILD_VERSION = 0x1D, 0x24, 0x32
CSMAGIC_EMBEDDED_SIGNATURE, CSMAGIC_CODEDIRECTORY = 0xFADE0CC0, 0xFADE0C02
CS_ADHOC, CS_HASHTYPE_SHA256 = 0x2, 2
PLATFORM_MACOS = 1


def version(v):
    return "%d.%d" % (v >> 16, (v >> 8) & 0xFF) + ("" if v & 0xFF == 0 else ".%d" % (v & 0xFF))


def slices(data):
    magic = struct.unpack_from(">I", data)[0]
    if magic == 0xCAFEBABE:
        n = struct.unpack_from(">I", data, 4)[0]
        for i in range(n):
            cpu, _, off, size, _ = struct.unpack_from(">iiIII", data, 8 + 20 * i)
            yield data[off:off + size]
    else:
        yield data


def check_slice(s):
    magic, cpu, _, _, ncmds, _, _ = struct.unpack_from("<IiiIIII", s)
    if magic != 0xFEEDFACF:
        raise ValueError("not a 64-bit Mach-O slice (magic %#x)" % magic)
    arch = CPU.get(cpu, hex(cpu))
    off, minos, platform, sig = 32, None, None, None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", s, off)
        if cmd == LC_BUILD_VERSION:
            platform = struct.unpack_from("<I", s, off + 8)[0]
            minos = version(struct.unpack_from("<I", s, off + 12)[0])
        elif cmd == LC_VERSION_MIN_MACOSX:
            minos = version(struct.unpack_from("<I", s, off + 8)[0])
        elif cmd == LC_CODE_SIGNATURE:
            sig = struct.unpack_from("<II", s, off + 8)
        off += size
    if platform not in (None, PLATFORM_MACOS):
        raise ValueError("%s: built for platform %d, not macOS" % (arch, platform))
    if sig is None:
        raise ValueError("%s: no code signature" % arch)
    dataoff, datasize = sig
    blob = s[dataoff:dataoff + datasize]
    smagic, _, count = struct.unpack_from(">III", blob)
    if smagic != CSMAGIC_EMBEDDED_SIGNATURE:
        raise ValueError("%s: signature magic %#x" % (arch, smagic))
    for i in range(count):
        _, boff = struct.unpack_from(">II", blob, 12 + 8 * i)
        if struct.unpack_from(">I", blob, boff)[0] != CSMAGIC_CODEDIRECTORY:
            continue
        cd = blob[boff:]
        (_, _, _, flags, hash_off, _, _, n_code, code_limit, hash_size, hash_type, _,
         page_log2) = struct.unpack_from(">IIIIIIIIIBBBB", cd)
        if not flags & CS_ADHOC:
            raise ValueError("%s: signed, but not ad hoc (flags %#x)" % (arch, flags))
        if hash_type != CS_HASHTYPE_SHA256:
            raise ValueError("%s: hash type %d" % (arch, hash_type))
        if code_limit != dataoff:
            raise ValueError("%s: the signature covers %d bytes of %d" % (arch, code_limit, dataoff))
        page = 1 << page_log2
        if n_code != -(-code_limit // page):
            raise ValueError("%s: %d pages hashed of %d signed bytes" % (arch, n_code, code_limit))
        for p in range(n_code):
            want = cd[hash_off + p * hash_size:hash_off + (p + 1) * hash_size]
            got = hashlib.sha256(s[p * page:min((p + 1) * page, code_limit)]).digest()
            if got != want:
                raise ValueError("%s: page %d does not match its hash" % (arch, p))
        return arch, minos, "ad hoc, %d pages of %d bytes, hashes match" % (n_code, page)
    raise ValueError("%s: no code directory in the signature" % arch)


def main(argv):
    path, want = argv[1], {}
    rest = argv[2:]
    while rest:
        if rest[0] != "--want" or len(rest) < 2:
            sys.exit(__doc__)
        a, m = rest[1].split(":")
        want[a] = m
        rest = rest[2:]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        sys.exit("%s: %s" % (path, e.strerror))
    found = {}
    try:
        for s in slices(data):
            arch, minos, what = check_slice(s)
            found[arch] = minos
            print("%s: %s, macOS %s or later, signature %s" % (path, arch, minos, what))
    except (ValueError, struct.error) as e:
        sys.exit("%s: %s" % (path, e))
    if want and found != want:
        sys.exit("%s: slices %s, expected %s" % (path, found, want))


if __name__ == "__main__":
    main(sys.argv)
