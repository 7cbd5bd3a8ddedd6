"""The seccomp filter every sandboxed program runs under: no new user namespaces.

A user namespace would give a program every capability inside it. bubblewrap's own
``--disable-userns`` needs a user namespace of its own, which a run as root does not have (it drops
to ``nobody`` in the machine's own namespace instead), so this filter makes ``unshare`` and
``clone`` fail with EPERM when asked for ``CLONE_NEWUSER``, and ``clone3`` (whose flags a classic
filter cannot read) fail with ENOSYS, on which the C library falls back to ``clone``. System calls
of another ABI than the machine's own (32-bit ones on x86-64, x32) fail with ENOSYS.

The program is classic BPF, as ``bwrap --seccomp FD`` reads it: ``struct sock_filter`` records.
"""

from __future__ import annotations

import errno
import platform
import struct

CLONE_NEWUSER = 0x10000000
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
NR, ARCH, ARG0 = 0, 4, 16
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06
ALLOW = 0x7FFF0000
ERRNO = 0x00050000
X32_BIT = 0x40000000

# machine: (AUDIT_ARCH_*, unshare, clone, clone3)
ABIS = {
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def supported() -> bool:
    return platform.machine() in ABIS


def no_user_namespaces() -> bytes:
    """The filter for this machine's ABI."""
    arch, unshare, clone, clone3 = ABIS[platform.machine()]
    deny = _op(RET_K, ERRNO | errno.EPERM)
    nosys = _op(RET_K, ERRNO | errno.ENOSYS)
    # Jumps count the instructions to skip: the target of ``jt``/``jf`` at i is i + 1 + jt/jf.
    program = [
        _op(LD_W_ABS, ARCH),  # 0
        _op(JEQ_K, arch, 1, 0),  # 1: this ABI -> 3
        nosys,  # 2
        _op(LD_W_ABS, NR),  # 3
        _op(JGE_K, X32_BIT, 7, 0),  # 4: x32 -> 12
        _op(JEQ_K, clone3, 6, 0),  # 5: -> 12
        _op(JEQ_K, unshare, 1, 0),  # 6: -> 8
        _op(JEQ_K, clone, 0, 3),  # 7: neither -> 11
        _op(LD_W_ABS, ARG0),  # 8: the flags (their low 32 bits)
        _op(JSET_K, CLONE_NEWUSER, 0, 1),  # 9: no user namespace asked -> 11
        deny,  # 10
        _op(RET_K, ALLOW),  # 11
        nosys,  # 12
    ]
    return b"".join(program)
