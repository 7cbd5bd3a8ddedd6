"""The launcher: a small single-threaded process that starts every sandboxed run for ``sandbox.py``.

One launcher serves many runs, one at a time, so a run costs a fork of this small process rather
than of the multi-threaded builder; and, as root, the launcher joins its cgroups once, so that each
run is born inside them rather than moved in (on cgroup v1 that write waits for an RCU grace
period, about 12 ms a run).

For a run the launcher forks a child that starts a session, takes the run's file descriptors as
0, 1, 2, ... in order, sets the limits, and executes the command line it was given: bubblewrap
(``bwrap``) with the sandbox's arguments where runs are isolated, the program itself where they
cannot be. The launcher waits for it, kills its whole process group when told to (or when the
builder's side goes away), and, a subreaper, kills and reaps whatever the run left behind.

Inside the sandbox the same program serves runs too (``--inside``): bubblewrap starts it once per
launcher as the first process of the sandbox's PID namespace, and it starts each run there, so
that a run costs a fork rather than a new sandbox. As root it first drops to ``nobody``; it is not
dumpable, so no run can trace it or read its memory. Before a run it writes the run's files into
its working folder; after it, it kills every other process of the namespace (``kill(-1)``, which
spares only itself), reaps them, and has every place a run can write (``/tmp`` and ``/dev/shm``)
replaced by a fresh, empty tmpfs, asked for once it has reported the run's end and waited for
before it starts the next: no process and no file of a run outlives it, and nothing a run leaves
there (a million files, folders thousands deep, names no path can hold) can make that fail or take
longer.

The inside launcher cannot mount (it has no capabilities, and the seccomp filter refuses mounts),
so the outer launcher, when it starts a sandbox, forks a *renewer* for it: a process outside the
sandbox that, on the inside launcher's first message, joins the sandbox's mount namespace (and, for
an ordinary user, the user namespace that owns it, where that user has every capability), and from
then on answers each ``b"renew"`` by unmounting each scratch folder and mounting a fresh tmpfs
there, a tenth of a millisecond. It takes the namespaces of the process that the kernel says sent
the message (SCM_CREDENTIALS), only if that is bubblewrap's child and not in its own mount
namespace. No run can reach it: it is not in their PID namespace, and it talks only to the inside
launcher. If a renewal fails, the inside launcher ends (the builder starts a new sandbox).

Standard library only; started as ``python -I -S launcher.py FD [--cgroup PATH]... [--inside
--renewer FD]``. Messages on the SOCK_SEQPACKET socket FD, in ``marshal`` format (both ends are
this program's):

    launcher -> {"ready": True}                                      once, when ready
    sandbox  -> {"argv", "env", "cwd", "rlimits", "streams",         with the run's descriptors:
                 "files": [(name, mode)], "dirs": [name]}            streams, then one per file
                + {"renew": {"paths", "options"}} (a sandbox)        and then the renewer's socket
    launcher -> {"pid": child} or {"error": text}
    sandbox  -> b"kill"                                              optional: stop the run now
    launcher -> {"status": wait status, "cpu": seconds, "ended": time}  when everything has ended
                (cpu: the user and system time of the run's whole process tree)
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import marshal
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing is not imported at run time: a smaller launcher forks faster
    from typing import Any, NoReturn

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
KILL = b"kill"  # from the sandbox: stop the current run (a deadline passed, or too much output)
MAX_FDS = 64  # descriptors one run may be given

libc = ctypes.CDLL(None, use_errno=True)
# Every signal a program starts with as by default: those it may catch (not 32 and 33, which glibc keeps).
RESET_SIGNALS = tuple(sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}))


def _prctl(option: int, value: int) -> int:
    """``prctl`` with one argument: the kernel reads none of the other three for the options used here."""
    return int(libc.prctl(option, value, 0, 0, 0))


def _call(result: int) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def _child(request: dict[str, Any], fds: list[int], parent: int) -> NoReturn:
    """The run's first process: session, descriptors, limits, then the command. Never returns."""
    try:
        _call(_prctl(PR_SET_PDEATHSIG, signal.SIGKILL))
        if os.getppid() != parent:
            os._exit(137)
        os.setsid()
        moved = [os.dup(fd) for fd in fds[: request.get("streams", len(fds))]]  # above every target
        for target, fd in enumerate(moved):
            os.dup2(fd, target)
        os.closerange(len(moved), 1 << 16)
        if request.get("cwd"):
            os.chdir(request["cwd"])
        for which, soft, hard in request["rlimits"]:
            resource.setrlimit(which, (soft, hard))
        for number in RESET_SIGNALS:  # Python ignores SIGPIPE and SIGXFSZ, and the builder may have ignored others
            signal.signal(number, signal.SIG_DFL)
        os.execvpe(request["argv"][0], request["argv"], request["env"])
    except OSError as error:
        with contextlib.suppress(OSError):
            os.write(2, f"sandbox: cannot start {request['argv'][0]}: {error.strerror}\n".encode())
    os._exit(127)


def _wait(child: int, sock: socket.socket) -> int:
    """The child's wait status, once it has ended or been killed (asked by the builder)."""
    try:
        pidfd = os.pidfd_open(child)
    except OSError:  # before Linux 5.3: wait for the child alone (a stop asked meanwhile goes unheard)
        pidfd = None
    if pidfd is not None:
        try:
            while pidfd not in select.select([pidfd, sock.fileno()], [], [])[0]:
                asked = sock.recv(16)
                _kill(child)
                if asked != KILL:  # the sandbox's side has closed: end the run, then stop
                    _reap_all()
                    sys.exit(0)
        finally:
            os.close(pidfd)
    _kill(child)  # the child is not reaped yet, so its process group cannot be anybody else's
    _, status = os.waitpid(child, 0)
    return status


def _children_cpu() -> float:
    """The CPU time (user and system) of every child this launcher has reaped so far, and of every
    process they reaped. Read before and after a run, once the run's every process is reaped (the
    launcher is the first process of the sandbox's PID namespace, or a subreaper: orphans come to
    it), the difference is the CPU time of the run's whole process tree, and nothing else's."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


NOBODY = 65534
PR_CAPBSET_DROP = 24
CAPABILITY_VERSION_3 = 0x20080522  # capset's header: two 32-bit words per set
PR_SET_DUMPABLE = 4
RENEW = b"renew"  # from the inside launcher to its renewer: fresh scratch folders, please
RENEWED = b"ok"


def _become_nobody() -> None:
    """Inside the sandbox as root: drop every capability for good, then become nobody."""
    for cap in range(64):
        if _prctl(PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() != 22:  # EINVAL: no such cap
            raise OSError(ctypes.get_errno(), "cannot drop a capability")
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    if os.getuid() != NOBODY or os.geteuid() != NOBODY:
        raise OSError(1, "still root")
    # Becoming nobody emptied the permitted and effective sets, not the inheritable one: empty it too
    # (capset with every set zero, which lowering alone allows), so that no set a run has holds one.
    header = struct.pack("Ii", CAPABILITY_VERSION_3, 0)
    if libc.capset(header, bytes(2 * 12)) != 0:
        raise OSError(ctypes.get_errno(), "cannot clear the inheritable capabilities")


def _prepare(request: dict[str, Any], fds: list[int]) -> None:
    """Inside: the run's working folder, with its files and folders (names checked by the sandbox)."""
    work = request["cwd"]
    streams = request["streams"]
    for name in request["dirs"]:
        os.makedirs(os.path.join(work, name), 0o777, exist_ok=True)
    for (name, mode), fd in zip(request["files"], fds[streams:], strict=True):
        path = os.path.join(work, name)
        os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
        out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            while chunk := os.read(fd, 1 << 20):
                os.write(out, chunk)
        finally:
            os.close(out)
        os.chmod(path, mode)


def _end_everything() -> None:
    """Inside: kill every process of the namespace but this one, and reap them."""
    while True:
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break


def _renew(renewer: socket.socket) -> None:
    """Inside: ask the renewer for fresh scratch folders (``_renewed`` waits for them)."""
    with contextlib.suppress(OSError):  # no renewer: _renewed hears no answer
        renewer.send(RENEW)


def _renewed(renewer: socket.socket) -> None:
    """Inside: wait for the fresh scratch folders asked for; without them this sandbox serves no
    other run, so the launcher ends (the builder starts the next run on a new one)."""
    try:
        answer = renewer.recv(4096)
    except OSError as error:
        answer = str(error).encode()
    if answer != RENEWED:
        with contextlib.suppress(OSError):
            os.write(2, b"sandbox: the run's folders cannot be renewed: " + (answer or b"the renewer has gone") + b"\n")
        os._exit(70)


MNT_DETACH = 2
UMOUNT_NOFOLLOW = 8
MS_NOSUID = 2
MS_NODEV = 4
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
NS_GET_USERNS = 0xB701
CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid


def _start_renewer(renew: dict[str, Any], fd: int, sandbox: int, me: int) -> None:
    """Outside: fork the renewer of the sandbox whose bubblewrap is ``sandbox`` (see the top)."""
    _pass_credentials(fd)  # (``_start`` did so already, before the sandbox could speak)
    with contextlib.suppress(OSError):  # no renewer: the sandbox's first renewal fails, and it says so
        if os.fork() == 0:
            try:
                _renewer(socket.socket(fileno=os.dup(fd)), renew, sandbox, me)
            finally:
                os._exit(1)


def _renewer(sock: socket.socket, renew: dict[str, Any], sandbox: int, parent: int) -> None:
    """The renewer's loop: join the sandbox's namespaces on its first message, then renew on each."""
    _call(_prctl(PR_SET_PDEATHSIG, signal.SIGKILL))
    if os.getppid() != parent:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C to the build: the builder ends the sandboxes
    os.closerange(3, sock.fileno())
    os.closerange(sock.fileno() + 1, 1 << 16)
    joined = False
    while True:
        data, extra, _, _ = sock.recvmsg(64, socket.CMSG_SPACE(CREDENTIALS.size))
        if not data:
            return
        try:
            if not joined:
                _join(_sender(extra), sandbox)
                joined = True
            for path in renew["paths"]:
                _fresh(path.encode(), renew["options"].encode())
        except OSError as error:
            sock.send(f"{error.strerror or error}".encode())
            return
        sock.send(RENEWED)


def _fresh(path: bytes, options: bytes) -> None:
    """Unmount the tmpfs at ``path`` and mount an empty one. Nothing holds the old one (every
    process of the run is dead, the launcher is in ``/``), so it goes at once, and what it held is
    freed (and uncharged from the cgroup) before the next run; were it held, it is detached."""
    if libc.umount2(path, UMOUNT_NOFOLLOW) != 0:
        if (error := ctypes.get_errno()) != errno.EBUSY:
            raise OSError(error, f"cannot unmount {path.decode()}: {os.strerror(error)}")
        _call(libc.umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW))
    _call(libc.mount(b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV, options))


def _pass_credentials(fd: int) -> None:
    """SCM_CREDENTIALS on every message the socket gets from now on."""
    with socket.socket(fileno=os.dup(fd)) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)


def _sender(extra: list[tuple[int, int, bytes]]) -> int:
    """The process that sent a message, as the kernel gave it (SCM_CREDENTIALS), in our PID namespace."""
    for level, kind, data in extra:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(data) >= CREDENTIALS.size:
            if pid := int(CREDENTIALS.unpack_from(data)[0]):
                return pid
            raise OSError(0, "the sandbox's launcher spoke before its credentials were asked for")
    raise OSError(0, "the sandbox's launcher sent no credentials")


def _join(pid: int, sandbox: int) -> None:
    """Enter the mount namespace of ``pid``, which must be bubblewrap's child, through the user
    namespace that owns it where that is not ours."""
    with open(f"/proc/{pid}/stat") as handle:
        if int(handle.read().rsplit(")", 1)[1].split()[1]) != sandbox:
            raise OSError(0, "the renewal was asked by a process that is not the sandbox's first")
    mnt = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    if os.fstat(mnt).st_ino == os.stat("/proc/self/ns/mnt").st_ino:
        raise OSError(0, "the sandbox has no mount namespace of its own")
    owner = fcntl.ioctl(mnt, NS_GET_USERNS)
    if os.fstat(owner).st_ino != os.stat("/proc/self/ns/user").st_ino:
        _call(libc.setns(owner, CLONE_NEWUSER))
    _call(libc.setns(mnt, CLONE_NEWNS))
    os.close(owner)
    os.close(mnt)


def _kill(child: int) -> None:
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(child, signal.SIGKILL)


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


def _start(sock: socket.socket, request: dict[str, Any], fds: list[int]) -> int:
    """Fork the run's child; its PID, or 0 after reporting why there is none."""
    if len(fds) < 3:
        _send(sock, {"error": "a run needs standard input, output and error"})
        return 0
    me = os.getpid()
    renewing = "renew" in request and len(fds) > request["streams"]
    if renewing:  # before the sandbox can speak: a message sent earlier carries no sender (pid 0)
        _pass_credentials(fds[request["streams"]])
    try:
        child = os.fork()
    except OSError as error:
        _send(sock, {"error": f"cannot fork: {error.strerror}"})
        return 0
    if child == 0:
        sock.close()
        _child(request, fds, me)
    if renewing:
        _start_renewer(request["renew"], fds[request["streams"]], child, me)
    _send(sock, {"pid": child})
    return child


def serve(sock: socket.socket, renewer: socket.socket | None = None) -> None:
    """Start one run per request until the sandbox's side closes the socket; ``renewer``: inside a
    sandbox, the socket to the renewer of its scratch folders."""
    inside = renewer is not None
    renewing = False  # a renewal asked for and not yet answered
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, MAX_FDS)
        except OSError:
            return
        if not data:
            return
        if data == KILL:  # asked for a run that had already ended
            for fd in fds:
                os.close(fd)
            continue
        if renewer and renewing:  # the last run's folders were renewed while the builder read its report
            _renewed(renewer)
            renewing = False
        request = marshal.loads(data)
        before = _children_cpu()
        child = _prepared(sock, request, fds) if inside else _start(sock, request, fds)
        for fd in fds:
            os.close(fd)
        if child:
            status = _wait(child, sock)
            ended = time.monotonic()  # the clock the builder's perf_counter reads: which of two runs ended first
            _end_everything() if inside else _reap_all()
            _send(sock, {"status": status, "cpu": _children_cpu() - before, "ended": ended})
        if renewer:  # fresh scratch folders while the builder reads the report, before the next run
            _renew(renewer)
            renewing = True


def _prepared(sock: socket.socket, request: dict[str, Any], fds: list[int]) -> int:
    """Inside: the run's files written, then its child forked; 0 after reporting why there is none."""
    try:
        _prepare(request, fds)
    except (OSError, ValueError) as error:
        _send(sock, {"error": f"cannot write the run's files: {error}"})
        return 0
    return _start(sock, request, fds)


def main(argv: list[str]) -> None:
    fd = int(argv[0])
    os.set_inheritable(fd, False)  # no program may reach the launcher
    sock = socket.socket(fileno=fd)
    renewer = None
    for index, arg in enumerate(argv):
        if arg == "--cgroup":
            with open(os.path.join(argv[index + 1], "cgroup.procs"), "w") as handle:
                handle.write("0")
        if arg == "--renewer":
            os.set_inheritable(int(argv[index + 1]), False)
            renewer = socket.socket(fileno=int(argv[index + 1]))
    if "--inside" in argv:
        if renewer is None:
            raise SystemExit("sandbox: a launcher inside a sandbox needs --renewer FD")
        if os.getuid() == 0:
            _become_nobody()
        _call(_prctl(PR_SET_DUMPABLE, 0))  # no run may trace it or read its memory
        for number in RESET_SIGNALS:  # the namespace's first process: signals from within it are ignored
            signal.signal(number, signal.SIG_DFL)
        os.chdir("/")  # nothing of this process in a scratch folder: each is dropped whole after a run
        _renew(renewer)  # capped in files too, which bubblewrap's tmpfs are not
        _renewed(renewer)
    else:
        _call(_prctl(PR_SET_CHILD_SUBREAPER, 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        _send(sock, {"ready": True})
        serve(sock, renewer)
    except (BrokenPipeError, ConnectionResetError):
        # The builder went away while a run was reported (it failed, or was stopped): there is no one
        # to tell, and a traceback would land in the middle of its last messages. End the run.
        _end_everything() if renewer else _reap_all()


if __name__ == "__main__":
    main(sys.argv[1:])
