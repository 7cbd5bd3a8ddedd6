"""The seccomp filter every sandboxed program runs under: no new user namespaces, no System V IPC.

A user namespace would give a program every capability inside it. bubblewrap's own
``--disable-userns`` needs a user namespace of its own, which a sandbox made as root does not
have (it drops to ``nobody`` in the machine's own namespace instead), so this filter makes
``unshare`` and ``clone`` fail with EPERM when asked for ``CLONE_NEWUSER``, and ``clone3`` (whose
flags a classic filter cannot read) fail with ENOSYS, on which the C library falls back to
``clone``. System V shared memory, semaphores and message queues, and POSIX message queues, would
outlive a run inside the sandbox that its launcher keeps for the next one: they fail with EPERM.
System calls of another ABI than the machine's own (32-bit ones on x86-64, x32) fail with ENOSYS.

The program is classic BPF, as ``bwrap --seccomp FD`` reads it: ``struct sock_filter`` records.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Abi:
    arch: int  # AUDIT_ARCH_*
    unshare: int
    clone: int
    clone3: int
    denied: tuple[int, ...]  # shmget, semget, msgget, mq_open


ABIS = {
    "x86_64": Abi(0xC000003E, 272, 56, 435, (29, 64, 68, 240)),
    "aarch64": Abi(0xC00000B7, 97, 220, 435, (194, 190, 186, 180)),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def supported() -> bool:
    return platform.machine() in ABIS


def sandbox_filter() -> bytes:
    """The filter for this machine's ABI: no new user namespaces, no System V IPC or POSIX queues."""
    abi = ABIS[platform.machine()]
    deny = _op(RET_K, ERRNO | errno.EPERM)
    nosys = _op(RET_K, ERRNO | errno.ENOSYS)
    allow = _op(RET_K, ALLOW)
    # Jumps count the instructions to skip: the target of ``jt``/``jf`` at i is i + 1 + jt/jf.
    # Layout: a head of checks, then the flag test, then the four returns at the end.
    checks: list[bytes | None] = [
        _op(LD_W_ABS, ARCH),
        None,
        _op(LD_W_ABS, NR),
        None,
        None,
        *([None] * len(abi.denied)),
        None,
        None,
    ]
    n = len(checks)
    flags, ret_deny, ret_allow, ret_nosys = n, n + 2, n + 3, n + 4  # flags: load + test, 2 instructions

    def to(target: int, at: int) -> int:
        return target - at - 1

    checks[1] = _op(JEQ_K, abi.arch, 0, to(ret_nosys, 1))  # another ABI
    checks[3] = _op(JGE_K, X32_BIT, to(ret_nosys, 3), 0)  # x32
    checks[4] = _op(JEQ_K, abi.clone3, to(ret_nosys, 4), 0)
    for index, number in enumerate(abi.denied):
        checks[5 + index] = _op(JEQ_K, number, to(ret_deny, 5 + index), 0)
    at = 5 + len(abi.denied)
    checks[at] = _op(JEQ_K, abi.unshare, to(flags, at), 0)
    checks[at + 1] = _op(JEQ_K, abi.clone, to(flags, at + 1), to(ret_allow, at + 1))
    program = [
        *checks,
        _op(LD_W_ABS, ARG0),  # flags: the low 32 bits of the first argument
        _op(JSET_K, CLONE_NEWUSER, to(ret_deny, flags + 1), to(ret_allow, flags + 1)),
        deny,
        allow,
        nosys,
    ]
    assert all(op is not None for op in program)
    return b"".join(op for op in program if op is not None)
