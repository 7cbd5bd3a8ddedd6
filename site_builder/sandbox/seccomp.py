"""The seccomp filter every sandboxed program runs under: what runs never need, refused.

It refuses, with EPERM, at least what Docker's default profile refuses a container without
capabilities, and ``ptrace`` besides (``DENIED`` lists them by family):

- namespaces: ``unshare`` and ``setns``, and ``clone`` asking for a new namespace. A user
  namespace would give a program every capability inside it, and bubblewrap's own
  ``--disable-userns`` needs a user namespace of its own, which a sandbox made as root does not
  have. ``clone3``, whose flags a classic filter cannot read, fails with ENOSYS, on which the C
  library falls back to ``clone``;
- what would outlive a run inside the sandbox its launcher keeps for the next one: System V shared
  memory, semaphores and message queues, POSIX message queues, and the kernel's keyrings (a key
  added to the user keyring is there for every later run of that user, and after the build);
- the kernel's riskier interfaces: ``io_uring``, ``userfaultfd``, ``perf_event_open``, ``bpf``;
  ``ptrace`` and the calls that read or change another process's memory; ``personality`` other
  than the values Docker allows (no ``ADDR_NO_RANDOMIZE``); kexec, modules, mounts, swap, clocks,
  the host name, reboot, accounting, quotas, the NUMA memory policies, and ``socket(AF_VSOCK)``,
  the one address family a network namespace does not cut off.

System calls of another ABI than the machine's own (32-bit ones on x86-64, x32) fail with ENOSYS.
The launcher's own calls that runs are denied (it mounts nothing) are made outside the filter.

The program is classic BPF, as ``bwrap --seccomp FD`` reads it: ``struct sock_filter`` records.
Its decision for a call depends on the call's number alone but for ``clone``, ``personality`` and
``socket``, so the kernel (5.11 and later) caches every allowed number: the filter costs an allowed
call nothing.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

# The calls refused with EPERM, by family (the red-team corpus runs one program per family).
DENIED = {
    "namespaces": ("unshare", "setns"),
    "ipc": ("shmget", "semget", "msgget", "mq_open"),
    "keyring": ("add_key", "request_key", "keyctl"),
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "userfaultfd": ("userfaultfd",),
    "perf_event_open": ("perf_event_open",),
    "bpf": ("bpf",),
    "ptrace": ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise"),
    "kexec": ("kexec_load", "kexec_file_load"),
    "modules": ("init_module", "finit_module", "delete_module", "create_module", "query_module", "get_kernel_syms"),
    "mount": (
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "open_tree",
        "move_mount",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "mount_setattr",
        "statmount",
        "listmount",
        "open_tree_attr",
    ),
    "system": (
        "reboot",
        "swapon",
        "swapoff",
        "acct",
        "settimeofday",
        "clock_settime",
        "sethostname",
        "setdomainname",
        "syslog",
        "vhangup",
        "quotactl",
        "quotactl_fd",
        "lookup_dcookie",
        "fanotify_init",
        "open_by_handle_at",
        "iopl",
        "ioperm",
        "uselib",
        "ustat",
        "sysfs",
        "_sysctl",
        "nfsservctl",
        "getpmsg",
        "putpmsg",
        "afs_syscall",
        "tuxcall",
        "security",
        "vserver",
    ),
    "numa": ("mbind", "set_mempolicy", "get_mempolicy", "migrate_pages", "move_pages", "set_mempolicy_home_node"),
}

# Each call's number on x86-64 and on aarch64 (None: that ABI has no such call). From the kernel's
# tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h); calls from
# 424 on have one number on every ABI.
NUMBERS: dict[str, tuple[int | None, int | None]] = {
    "clone": (56, 220),
    "clone3": (435, 435),
    "personality": (135, 92),
    "socket": (41, 198),
    "unshare": (272, 97),
    "setns": (308, 268),
    "shmget": (29, 194),
    "semget": (64, 190),
    "msgget": (68, 186),
    "mq_open": (240, 180),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "keyctl": (250, 219),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "userfaultfd": (323, 282),
    "perf_event_open": (298, 241),
    "bpf": (321, 280),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "pidfd_getfd": (438, 438),
    "process_madvise": (440, 440),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "create_module": (174, None),
    "query_module": (178, None),
    "get_kernel_syms": (177, None),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "statmount": (457, 457),
    "listmount": (458, 458),
    "open_tree_attr": (467, 467),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "sethostname": (170, 161),
    "setdomainname": (171, 162),
    "syslog": (103, 116),
    "vhangup": (153, 58),
    "quotactl": (179, 60),
    "quotactl_fd": (443, 443),
    "lookup_dcookie": (212, 18),
    "fanotify_init": (300, 262),
    "open_by_handle_at": (304, 265),
    "iopl": (172, None),
    "ioperm": (173, None),
    "uselib": (134, None),
    "ustat": (136, None),
    "sysfs": (139, None),
    "_sysctl": (156, None),
    "nfsservctl": (180, 42),
    "getpmsg": (181, None),
    "putpmsg": (182, None),
    "afs_syscall": (183, None),
    "tuxcall": (184, None),
    "security": (185, None),
    "vserver": (236, None),
    "mbind": (237, 235),
    "set_mempolicy": (238, 237),
    "get_mempolicy": (239, 236),
    "migrate_pages": (256, 238),
    "move_pages": (279, 239),
    "set_mempolicy_home_node": (450, 450),
}

# clone's flags that make namespaces: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
CLONE_NEW_ANY = 0x7E020000
# personality values Docker allows: PER_LINUX, PER_LINUX32, UNAME26 (and with PER_LINUX32), and the query.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
AF_VSOCK = 40

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
    column: int  # which of NUMBERS' numbers is this ABI's

    def number(self, name: str) -> int | None:
        return NUMBERS[name][self.column]


ABIS = {"x86_64": Abi(0xC000003E, 0), "aarch64": Abi(0xC00000B7, 1)}


def supported() -> bool:
    return platform.machine() in ABIS


def denied_numbers(abi: Abi) -> list[int]:
    """The numbers of every call of ``DENIED`` that this ABI has."""
    found = (abi.number(name) for names in DENIED.values() for name in names)
    return sorted({number for number in found if number is not None})


def sandbox_filter() -> bytes:
    """The filter for this machine's ABI."""
    abi = ABIS[platform.machine()]
    clone, clone3, personality, socket = (abi.number(n) for n in ("clone", "clone3", "personality", "socket"))
    assert clone is not None and clone3 is not None and personality is not None and socket is not None
    program = _Program()
    program.load(ARCH)
    program.jump(JEQ_K, abi.arch, "", "nosys")  # another ABI
    program.load(NR)
    program.jump(JGE_K, X32_BIT, "nosys", "")  # x32
    program.jump(JEQ_K, clone3, "nosys", "")
    for number in denied_numbers(abi):
        program.jump(JEQ_K, number, "deny", "")
    program.jump(JEQ_K, clone, "clone", "")
    program.jump(JEQ_K, personality, "personality", "")
    program.jump(JEQ_K, socket, "socket", "allow")
    program.label("clone")  # the low 32 bits of the first argument: the flags
    program.load(ARG0)
    program.jump(JSET_K, CLONE_NEW_ANY, "deny", "allow")
    program.label("personality")
    program.load(ARG0)
    for value in PERSONALITIES[:-1]:
        program.jump(JEQ_K, value, "allow", "")
    program.jump(JEQ_K, PERSONALITIES[-1], "allow", "deny")
    program.label("socket")  # the address family
    program.load(ARG0)
    program.jump(JEQ_K, AF_VSOCK, "deny", "allow")
    program.label("deny")
    program.ret(ERRNO | errno.EPERM)
    program.label("allow")
    program.ret(ALLOW)
    program.label("nosys")
    program.ret(ERRNO | errno.ENOSYS)
    return program.assemble()


class _Program:
    """Classic BPF with named jump targets; "" is the next instruction."""

    def __init__(self) -> None:
        self.ops: list[tuple[int, int, str, str]] = []
        self.labels: dict[str, int] = {}

    def load(self, offset: int) -> None:
        self.ops.append((LD_W_ABS, offset, "", ""))

    def jump(self, code: int, k: int, true: str, false: str) -> None:
        self.ops.append((code, k, true, false))

    def ret(self, value: int) -> None:
        self.ops.append((RET_K, value, "", ""))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.ops)

    def assemble(self) -> bytes:
        out = []
        for at, (code, k, true, false) in enumerate(self.ops):
            jt, jf = (self.labels[t] - at - 1 if t else 0 for t in (true, false))
            assert 0 <= jt < 256 and 0 <= jf < 256, "a jump too far for classic BPF"
            out.append(struct.pack("=HBBI", code, jt, jf, k))
        return b"".join(out)
