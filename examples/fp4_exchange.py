"""Packing fp4 data, exporting it, and reading it back on the other side.

DLPack stores sub-byte elements packed, little bit-endian: two fp4 elements
per byte, the first in the low nibble.  A producer may instead pad each
element to a byte and say so with the IS_SUBBYTE_TYPE_PADDED flag.  dlarray
speaks both and converts between them.

Run: python examples/fp4_exchange.py
"""

import numpy as np

import dlarray
from dlarray import abi, subbyte


def main() -> None:
    codes = [0b0001, 0b0010, 0b0011, 0b1111, 0b0100]  # five fp4 bit patterns
    packed = subbyte.from_codes(codes, dlarray.float4_e2m1fn)
    raw = np.from_dlpack(subbyte.packed_bytes(packed)).tobytes()
    print("five fp4 codes packed into", len(raw), "bytes:", raw.hex(" "))  # 21 f3 04

    # Export and import through a versioned capsule: the layout travels with it.
    imported = dlarray.from_dlpack(packed)
    print("imported:", imported.dtype, imported.shape, "padded:", subbyte.is_padded(imported))
    assert subbyte.to_codes(imported).shape == (5,)

    padded = subbyte.pad(packed)  # one element per byte, flagged as padded
    capsule = padded.__dlpack__(max_version=(1, 3))
    flag = abi.describe(capsule).flags & abi.IS_SUBBYTE_TYPE_PADDED  # read, not consumed
    print("padded export carries IS_SUBBYTE_TYPE_PADDED:", bool(flag))
    again = abi.consume(capsule)  # the consumer reads the flag: padded again
    assert flag and subbyte.is_padded(again)
    assert subbyte.to_codes(again).shape == (5,)


if __name__ == "__main__":
    main()
