"""Run soak.py in a subprocess that imports the same dlarray as the tests,
and describe how it ended."""

from __future__ import annotations

import itertools
import json
import os
import pathlib
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import dlarray

HERE = pathlib.Path(__file__).resolve().parent
SOAK = HERE / "soak.py"
#: How much of a failed soak's output a failure message shows.
OUTPUT_TAIL = 4000


@dataclass
class Outcome:
    """How a soak subprocess ended: its exit status, output and report."""

    command: str  # to run it again by hand
    returncode: int | None  # None: killed after the timeout
    output: str
    report: dict[str, Any] | None

    def failure(self) -> str | None:
        """Why the soak did not complete, or None if it did."""
        if self.returncode is None:
            reason = "hung: killed after its timeout"
        elif self.returncode < 0:
            reason = f"crashed: killed by {signal_name(-self.returncode)}"
        elif self.returncode == 1 and "Timeout (" in self.output:
            reason = "hung: its faulthandler watchdog ended it (the stacks show where)"
        elif self.returncode != 0:
            reason = f"exited with status {self.returncode}"
        elif self.report is None:
            reason = "wrote no report"
        else:
            return None
        return (
            f"the soak subprocess {reason}\n{crash_summary(self.output)}\n"
            f"to run it again: {self.command}"
        )


def crash_summary(output: str) -> str:
    """The fatal error line and the stack of the thread that crashed (as
    faulthandler printed them), then the end of the output."""
    lines = output.splitlines()
    fatal = [line for line in lines if line.startswith("Fatal Python error")]
    start = next((i for i, line in enumerate(lines) if line.startswith("Current thread")), None)
    if start is not None:
        crashed = list(itertools.takewhile(bool, lines[start:]))
    elif fatal:
        crashed = ["(no 'Current thread' in the stacks: a thread Python does not know crashed)"]
    else:
        crashed = []
    parts = [*fatal[:1], *crashed, "... the output ends:", output[-OUTPUT_TAIL:]]
    return "\n".join(parts)


def signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


def child_environment() -> dict[str, str]:
    """This environment, with dlarray's parent directory first on the
    subprocess's path (then the helpers in tests/threads and tests/)."""
    paths = [pathlib.Path(dlarray.__file__).resolve().parent.parent, HERE, HERE.parent]
    env = dict(os.environ)
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
    env.pop("PYTHONSTARTUP", None)
    return env


def run_soak(scenario: str, *, seconds: float, threads: int, workdir: pathlib.Path) -> Outcome:
    """Soak ``scenario`` for ``seconds`` with ``threads`` workers."""
    report = workdir / f"soak-{scenario}.json"
    command = [
        sys.executable,
        str(SOAK),
        scenario,
        f"--seconds={seconds}",
        f"--threads={threads}",
        f"--report={report}",
    ]
    env = child_environment()
    rerun = shlex.join([f"PYTHONPATH={env['PYTHONPATH']}", *command[:-1]])
    try:
        done = subprocess.run(
            command,
            cwd=workdir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=seconds * 2 + 90,  # soak.py dumps its stacks and exits before
        )
    except subprocess.TimeoutExpired as expired:
        output = expired.output or ""
        if isinstance(output, bytes):
            output = output.decode(errors="replace")
        return Outcome(rerun, None, output, None)
    loaded = json.loads(report.read_text()) if report.exists() else None
    return Outcome(rerun, done.returncode, done.stdout, loaded)
