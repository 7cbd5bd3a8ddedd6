"""The launcher: a small single-threaded process that starts every sandboxed run for ``sandbox.py``.

One launcher serves many runs, one at a time, so a run costs a fork of this small process instead of
the executables ``unshare``, ``sh``, ``mount`` and ``prlimit`` in turn; and, as root, the launcher
joins its pids cgroup once, so that each run is born inside it rather than moved in (on cgroup v1
that write waits for an RCU grace period, about 12 ms a run).

For a run the launcher forks a *keeper* as the first process of a new PID namespace (the
launcher returns to its own namespace at once). The keeper starts a session, enters new mount and
network namespaces, makes the read-only bind mounts, and forks the program's process, which sets
the limits and executes the program. The keeper reaps until the program ends, reports its wait
status on a pipe and exits; everything the program started dies with the namespace. Without
namespaces the launcher, a subreaper, kills and reaps whatever the program left. Not as root, the
launcher first makes a user namespace of its own (as ``unshare --map-root-user`` would).

Standard library only; started as ``python -I -S launcher.py FD [--cgroup PATH] [--no-namespaces]``.
Messages on the SOCK_SEQPACKET socket FD, in ``marshal`` format (both ends are this program's):

    launcher -> {"isolated": bool}                                   once, when ready
    sandbox  -> {"argv", "cwd", "env", "rlimits", "read_only"}       with stdin, stdout, stderr
    launcher -> {"pid": keeper} or {"error": text}
    sandbox  -> b"kill"                                              optional: stop the run now
    launcher -> {"status": wait status, "cpu": seconds}              when everything has ended
"""

from __future__ import annotations

import contextlib
import ctypes
import marshal
import os
import resource
import select
import signal
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing is not imported at run time: a smaller launcher forks faster
    from typing import Any, NoReturn

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 0x1
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
KILL = b"kill"  # from the sandbox: stop the current run (a deadline passed, or too much output)
# Flags a bind mount keeps from its source; a remount that drops one fails inside a user namespace.
KEPT_FLAGS = {
    os.ST_NOSUID: 0x2,
    os.ST_NODEV: 0x4,
    os.ST_NOEXEC: 0x8,
    os.ST_NOATIME: 0x400,
    os.ST_NODIRATIME: 0x800,
    os.ST_RELATIME: 0x200000,
}

libc = ctypes.CDLL(None, use_errno=True)
# Every signal a program starts with as by default: those it may catch (not 32 and 33, which glibc keeps).
RESET_SIGNALS = tuple(sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}))


def _call(result: int) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def _own_user_namespace() -> None:
    """Become root of a new user namespace and the first process of a new PID namespace it owns.

    What ``unshare --map-root-user`` does, for a user who is not root: it lets this process make
    the namespaces of every run, and return to its own PID namespace after each.
    """
    uid, gid = os.geteuid(), os.getegid()
    _call(libc.unshare(CLONE_NEWUSER))
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    _call(libc.unshare(CLONE_NEWPID))
    child = os.fork()
    if child:  # the sandbox knows this process: it stays, and ends as the launcher does
        os._exit(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) & 0xFF)
    _die_with_parent(0)


def _isolation() -> int | None:
    """This process's PID namespace (an open file) where runs can have namespaces, or None."""
    try:
        if os.geteuid():
            _own_user_namespace()
        own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    probe = _fork(own)
    if probe == 0:
        try:
            _enter_namespaces(())
            os._exit(0)
        except OSError:
            os._exit(1)
    if os.waitstatus_to_exitcode(os.waitpid(probe, 0)[1]) == 0:
        return own
    os.close(own)
    return None


def _fork(own: int | None) -> int:
    """``fork()``; with ``own``, the child is the first process of a new PID namespace."""
    if own is None:
        return os.fork()
    _call(libc.unshare(CLONE_NEWPID))  # this process's next child goes there...
    try:
        child = os.fork()
    except OSError:
        _call(libc.setns(own, CLONE_NEWPID))
        raise
    if child:
        _call(libc.setns(own, CLONE_NEWPID))  # ...and the ones after it stay here
    return child


def _enter_namespaces(read_only: tuple[str, ...]) -> None:
    """Mount and network namespaces for a run's first process; then the read-only bind mounts."""
    _call(libc.unshare(CLONE_NEWNS | CLONE_NEWNET))
    _mount_read_only(read_only)


def _mount_read_only(paths: tuple[str, ...]) -> None:
    """Keep mounts from reaching the host, then bind each path onto itself read-only."""
    _call(libc.mount(None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None))
    for path in paths:
        target = os.fsencode(path)
        _call(libc.mount(target, target, None, ctypes.c_ulong(MS_BIND), None))
        kept = sum(flag for st, flag in KEPT_FLAGS.items() if os.statvfs(path).f_flag & st)
        _call(libc.mount(None, target, None, ctypes.c_ulong(MS_REMOUNT | MS_BIND | MS_RDONLY | kept), None))


def _die_with_parent(parent: int) -> None:
    """SIGKILL when the parent dies; exit now if it already has (``parent`` 0: it is outside the namespace)."""
    _call(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0))
    if parent and os.getppid() != parent:
        os._exit(137)


def _program(request: dict[str, Any], fds: list[int], parent: int) -> NoReturn:
    """The run's own process: standard streams, working directory, limits, then the program. Never returns."""
    try:
        _die_with_parent(parent)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        for which, value in request["rlimits"]:
            resource.setrlimit(which, (value, value))
        for number in RESET_SIGNALS:  # Python ignores SIGPIPE and SIGXFSZ, and the builder may have ignored others
            signal.signal(number, signal.SIG_DFL)
        os.execvpe(request["argv"][0], request["argv"], request["env"])
    except OSError as error:
        with contextlib.suppress(OSError):
            os.write(2, f"sandbox: cannot start {request['argv'][0]}: {error.strerror}\n".encode())
    os._exit(127)


def _keeper(request: dict[str, Any], fds: list[int], isolated: bool, status_pipe: int) -> NoReturn:
    """Start the program, reap every child until it ends, and report its wait status. Never returns.

    The run is this process's session. Isolated, this is the first process of the run's PID
    namespace, so that the program is not: the kernel drops signals such as SIGXFSZ and SIGABRT
    that a namespace's first process sends itself. Everything the run started dies with this
    process, and orphans come here to be reaped.
    """
    try:
        _die_with_parent(0)  # the launcher is single-threaded, so its death is its only thread's
        os.setsid()
        if isolated:
            _enter_namespaces(request["read_only"])
        me = os.getpid()
        program = os.fork()
    except OSError as error:
        with contextlib.suppress(OSError):
            os.write(fds[2], f"sandbox: cannot start the run: {error.strerror}\n".encode())
        os._exit(127)
    if program == 0:
        os.close(status_pipe)
        _program(request, fds, me)
    for fd in fds:
        os.close(fd)
    while True:
        with contextlib.suppress(ChildProcessError, InterruptedError):
            pid, status = os.waitpid(-1, 0)
            if pid == program:
                os.write(status_pipe, status.to_bytes(4, "little"))
                os._exit(0)


def _wait(keeper: int, sock: socket.socket, status_pipe: int) -> tuple[int, float]:
    """The program's wait status (the keeper's, if the program never ended) and the run's CPU time."""
    try:
        pidfd = os.pidfd_open(keeper)
    except OSError:  # before Linux 5.3: wait for the keeper alone (a stop asked meanwhile goes unheard)
        pidfd = None
    if pidfd is not None:
        try:
            while pidfd not in select.select([pidfd, sock.fileno()], [], [])[0]:
                asked = sock.recv(16)
                _kill(keeper)
                if asked != KILL:  # the sandbox's side has closed: end the run, then stop
                    _reap_all()
                    sys.exit(0)
        finally:
            os.close(pidfd)
    _kill(keeper)  # the keeper is not reaped yet, so its process group cannot be anybody else's
    _, status, usage = os.wait4(keeper, 0)
    reported = os.read(status_pipe, 4)
    return int.from_bytes(reported, "little") if len(reported) == 4 else status, usage.ru_utime + usage.ru_stime


def _kill(keeper: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(keeper, signal.SIGKILL)


def _children() -> list[int]:
    try:
        with open(f"/proc/self/task/{os.getpid()}/children") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        return []


def _reap_all() -> None:
    """Kill and reap whatever the run left; as a subreaper, the launcher inherits every orphan."""
    while True:
        for pid in _children():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.send(marshal.dumps(message))


def _start(sock: socket.socket, request: dict[str, Any], fds: list[int], own: int | None, status_pipe: int) -> int:
    """Fork the run's keeper; its PID, or 0 after reporting why there is none."""
    if len(fds) != 3:
        _send(sock, {"error": "a run needs standard input, output and error"})
        return 0
    try:
        keeper = _fork(own)
    except OSError as error:
        _send(sock, {"error": f"cannot fork: {error.strerror}"})
        return 0
    if keeper == 0:
        sock.close()
        _keeper(request, fds, own is not None, status_pipe)
    _send(sock, {"pid": keeper})
    return keeper


def serve(sock: socket.socket, own: int | None) -> None:
    """Start one run per request until the sandbox's side closes the socket.

    ``own``: this process's PID namespace, when each run gets namespaces of its own.
    """
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        except OSError:
            return
        if not data:
            return
        if data == KILL:  # asked for a run that had already ended
            continue
        status_read, status_write = os.pipe()
        keeper = _start(sock, marshal.loads(data), fds, own, status_write)
        for fd in (*fds, status_write):
            os.close(fd)
        if keeper:
            status, cpu = _wait(keeper, sock, status_read)
            _reap_all()
            _send(sock, {"status": status, "cpu": cpu})
        os.close(status_read)


def main(argv: list[str]) -> None:
    fd = int(argv[0])
    os.set_inheritable(fd, False)  # no program may reach the launcher
    sock = socket.socket(fileno=fd)
    if "--cgroup" in argv:
        with open(os.path.join(argv[argv.index("--cgroup") + 1], "cgroup.procs"), "w") as handle:
            handle.write("0")
    _call(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    own = None if "--no-namespaces" in argv else _isolation()
    _send(sock, {"isolated": own is not None})
    serve(sock, own)


if __name__ == "__main__":
    main(sys.argv[1:])
