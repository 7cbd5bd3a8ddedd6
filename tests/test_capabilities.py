"""A sandboxed program holds no capability it could use, and can gain none."""

from __future__ import annotations

import sys

import pytest

from site_builder.sandbox import runner as sandbox
from site_builder.sandbox.runner import Limits
from site_builder.verify.runtimes import python_runtime

READ_STATUS = "print(open('/proc/self/status').read())"
CAPABILITY_SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


def test_a_sandboxed_program_holds_no_capability_and_none_in_its_bounding_set() -> None:
    """The bounding set too: with one left in it, a program that execs a file-capable binary (or a
    kernel bug) could take a capability back."""
    if not sandbox.isolated():
        pytest.skip("runs are not isolated on this machine")
    exe, toolchain = python_runtime(sys.executable)
    result = sandbox.run(
        [exe, "main.py"], b"", Limits(wall=10), files={"main.py": READ_STATUS.encode()}, toolchain=toolchain
    )
    assert result.exit_code == 0, result.stderr
    fields = dict(line.split(":", 1) for line in result.stdout.decode().splitlines() if ":" in line)
    held = {name: fields[name].strip() for name in CAPABILITY_SETS}
    assert held == dict.fromkeys(CAPABILITY_SETS, "0000000000000000")
    assert fields["NoNewPrivs"].strip() == "1"
    if sandbox.isolation_level().mode == "root":  # nobody in every id (real, effective, saved, file system), no group
        ids = {name: fields[name].split() for name in ("Uid", "Gid", "Groups")}
        assert ids == {"Uid": ["65534"] * 4, "Gid": ["65534"] * 4, "Groups": []}
