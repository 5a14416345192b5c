"""ptpickle.py: the pickle opcodes the hostile tests' .pt writers (mktensor.py, mkview.py) share."""
import struct


def pint(n):
    """A pickle integer, whatever its size or sign (protocol 2 opcodes)."""
    if 0 <= n < 256:
        return b"K" + bytes([n])
    if 0 <= n < 65536:
        return b"M" + struct.pack("<H", n)
    if -2**31 <= n < 2**31:
        return b"J" + struct.pack("<i", n)
    raw = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


def ptuple(items):
    return b"(" + b"".join(pint(i) for i in items) + b"t"
