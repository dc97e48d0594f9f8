"""FNV-1a 64, the hash by which the reference scripts record bytes (images, crops, tensors) and
the tests check their own: 16 hex digits."""


def fnv1a64(data):
    """FNV-1a 64-bit hash of bytes, as 16 hex digits."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"
