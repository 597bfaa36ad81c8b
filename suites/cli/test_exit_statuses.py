"""Every exit status of the command line has one meaning (harness/model/status.py, README "Exit statuses"):
each command is run here into each status it can give: 0 all agree, 1 found something new, 2 a usage or
configuration error, 3 an implementation that cannot start, 4 interrupted, 5 the harness's own failure."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from harness.cli import main as cli
from harness.model.schemas import problems
from harness.model.status import AGREE, FOUND, INTERNAL, INTERRUPTED, STATUSES, UNAVAILABLE, USAGE
from suites.fake_impl import declare, run

ROOT = Path(__file__).resolve().parents[2]

# A misspelt implementation, for every command that opens one: status 2 and a suggestion.
MISSPELT_IMPL = [
    ("check", "--impl", "pyo"),
    ("run", "--impl", "pyo"),
    ("selftest", "--impl", "pyo"),
    ("diff", "normalize_fact_text", "x", "--impls", "pyo"),
    ("trace", "normalize_fact_text", "x", "--impls", "pyo"),
    ("tracecheck", "--examples", "1", "--impls", "pyo"),
    ("fuzz", "--seconds", "1", "--impls", "pyo"),
    ("sweep", "--templates", "alone", "--range", "U+0041", "--impls", "pyo"),
    ("expected", "check", "--impls", "pyo"),
]

# A misspelt op or template or a bad value: status 2, before any implementation starts.
MISUSES = [
    (("diff", "decide_writ", "x"), "did you mean 'decide_write'"),
    (("trace", "decide_writ", "x"), "did you mean 'decide_write'"),
    (("tracecheck", "--ops", "decide_writ"), "did you mean 'decide_write'"),
    (("fuzz", "--ops", "decide_writ"), "did you mean 'decide_write'"),
    (("sweep", "--ops", "decide_writ"), "did you mean 'decide_write'"),
    (("sweep", "--templates", "alon"), "did you mean 'alone'"),
    (("sweep", "--shard", "3/2"), "K must be"),
    (("diff", "normalize_fact_text", "a", "b"), "takes 1 argument"),
    (("diff", "decide_write", "x", "--arg", "nope=1"), "expected NAME=JSON"),
    (("tracecheck", "--examples", "0"), "at least 1"),
    (("promote", "--report", "/no/such/report.json", "--index", "1", "--id", "x"), "cannot read the report"),
    (("expected", "update", "--report", "/no/such/report.json", "--impls", "reference"), "cannot read the report"),
    (("expected", "update", "--cause", "whitespace", "--impls", "reference"), "'whitespace' is not a cause"),
    (("report", "show", "/no/such/report.json"), "cannot read the report"),
    (("report", "diff", "/no/such/a.json", "/no/such/b.json"), "cannot read the report"),
    (("report", "show"), "takes at least one report"),
    (("report", "html", "/no/such/report.json"), "cannot read the report"),
    (("report", "html", "--baseline", "/no/such/report.json"), "cannot read the report"),
    (("fuzz", "--baseline", "/no/such/report.json"), "--baseline"),
    (("check", "--impl", "reference", "--baseline", "/no/such/report.json"), "--baseline"),
]


@pytest.mark.parametrize("argv", MISSPELT_IMPL, ids=lambda argv: argv[0])
def test_a_misspelt_implementation_is_a_usage_error_with_a_suggestion(
        argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(list(argv)) == USAGE
    assert "unknown implementation 'pyo'; did you mean 'pyo3'?" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "said"), MISUSES, ids=lambda value: " ".join(value) if isinstance(value, tuple)
                         else None)
def test_a_misuse_is_a_usage_error_naming_what_was_wrong(argv: tuple[str, ...], said: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(list(argv)) == USAGE
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["fuz"], ["fuzz", "--minutes", "many"], ["expected", "chek"], ["check"]])
def test_a_bad_command_line_is_status_2_with_a_suggestion_for_a_misspelt_choice(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert stopped.value.code == USAGE
    err = capsys.readouterr().err
    if argv in (["fuz"], ["expected", "chek"]):
        assert re.search(r"did you mean '(fuzz|check)'\?", err), err


def test_every_command_shows_its_defaults_an_example_and_the_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    for command in cli.COMMANDS:
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        out = capsys.readouterr().out
        assert f"  python -m harness {command}" in out, command
        assert "exit statuses: 0 all agree" in out and "4 interrupted" in out, command
        assert "implementations: reference" in out, command
        assert max(len(line) for line in out.splitlines()) <= 120, command
    with pytest.raises(SystemExit):
        cli.main(["fuzz", "--help"])
    out = capsys.readouterr().out
    assert "(default: 1)" in out and "(default: reports/fuzz-" in out
    with pytest.raises(SystemExit):
        cli.main(["sweep", "--help"])
    assert "templates: alone, " in capsys.readouterr().out


def test_the_readme_lists_the_statuses_of_the_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    for number in STATUSES:
        assert re.search(rf"^\| `{number}` \|", section, re.M), f"README's exit statuses lack {number}"


def test_an_interrupted_command_is_status_4(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "lint", interrupted)
    assert cli.main(["lint"]) == INTERRUPTED
    assert "interrupted" in capsys.readouterr().err


# A harness bug planted in a command, and in a fuzz worker. Workers start from a fork server (pools.start_method),
# which imports the harness afresh: the worker's bug is planted by a sitecustomize module on PYTHONPATH, which
# every process of the run (the harness, the fork server, each worker) imports as it starts.
PLANTED_HARNESS_BUGS = {
    "command": "import harness.cli.main as m; m.COMMANDS['lint'] = lambda args: {}['planted']; argv = ['lint']",
    "fuzz worker": "import harness.cli.main as m\nargv = ['fuzz', '--seconds', '3', '--workers', '2', '--impls', "
                   "'reference,fake', '--report', REPORT]",
    # A task its workers cannot even unpickle (a function of this script's __main__): no batch ever comes back.
    # That was "0 examples ... no divergences", status 0: a green verdict on nothing checked.
    # The pool sends ``_run_slotted``: the plant must replace that one, not ``run_batch`` (which the workers call
    # from their own import of the module, so that replacing it here plants nothing).
    "fuzz workers lost": "import harness.cli.main as m, harness.fuzzing.fuzz as f\n"
                         "def _run_slotted(slot, task):\n    return {}\n"
                         "f._run_slotted = _run_slotted\n"
                         "argv = ['fuzz', '--seconds', '2', '--workers', '2', '--impls', 'reference,fake', "
                         "'--report', REPORT]",
}
WORKER_PLANT = """
import harness.fuzzing.fuzz as f

def run_batch(task, opened=None):
    raise TypeError('planted')

run_batch.__module__, run_batch.__qualname__ = f.__name__, 'run_batch'
f.run_batch = run_batch
"""


@pytest.mark.parametrize("plant", sorted(PLANTED_HARNESS_BUGS))
def test_an_exception_the_harness_did_not_expect_is_status_5_saying_it_is_a_harness_bug(
        plant: str, tmp_path: Path) -> None:
    """Never 1 (which says "found something new"): an internal error ends with its traceback, a last line
    saying the harness failed, and status 5."""
    import subprocess
    import sys

    code = (f"REPORT = {str(tmp_path / 'fuzz.json')!r}\n" + PLANTED_HARNESS_BUGS[plant]
            + "\nfrom harness.model.status import exit_with\nexit_with(lambda: m.main(argv))\n")
    declare(tmp_path / "impls")  # a command testee beside the reference (no build needed)
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(tmp_path / "impls"))
    if plant == "fuzz worker":
        (tmp_path / "site").mkdir()
        (tmp_path / "site" / "sitecustomize.py").write_text(WORKER_PLANT, encoding="utf-8")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path / "site"), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False, env=env)
    assert done.returncode == INTERNAL, (done.stdout[-2000:], done.stderr[-3000:])
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("internal error: the harness failed") and "bug in the harness" in last, done.stderr[-2000:]
    assert "Traceback" in done.stderr and ("planted" in done.stderr or "no batch came back" in done.stderr)
    assert not (tmp_path / "fuzz.json").exists()  # no report of a run that checked nothing


def test_a_command_error_is_not_an_internal_error(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.model.status import UsageError, exit_with

    def usage() -> int:
        raise UsageError("bad thing")

    with pytest.raises(SystemExit) as ended:
        exit_with(usage)
    assert ended.value.code == USAGE
    assert capsys.readouterr().err == "error: bad thing\n"


def test_the_statuses_of_commands_on_a_fake_implementation(tmp_path: Path) -> None:
    """0 when the fake agrees, 1 when a bug is planted in it, 3 when it cannot start, 2 when its
    declaration is broken: through the real command line, in subprocesses."""
    good, buggy, dead, broken = (tmp_path / name for name in ("good", "buggy", "dead", "broken"))
    declare(good)
    declare(buggy, bug="capitalize")
    declare(dead, start={"command": ["{python}", "-c", "import sys; sys.exit(5)"]})
    broken.mkdir()
    (broken / "fake.json").write_text("{not json", encoding="utf-8")
    diff = ("-m", "harness", "diff", "normalize_fact_text", "hello World", "--impls", "fake")
    assert run(good, *diff).returncode == AGREE
    found = run(buggy, *diff)
    assert found.returncode == FOUND, found.stdout + found.stderr
    check = ("-m", "harness", "check", "--impl", "fake", "--results", str(tmp_path / "check.json"))
    assert run(good, *check).returncode == AGREE
    assert problems(json.loads((tmp_path / "check.json").read_text())) == []
    assert run(buggy, *check).returncode == FOUND
    for folder, status, said in [(dead, UNAVAILABLE, "fake"), (broken, USAGE, "cannot read the declaration")]:
        fuzz = ("-m", "harness", "fuzz", "--seconds", "1", "--impls", "fake", "--report", str(tmp_path / "fuzz.json"))
        for argv in (diff, check,
                     ("-m", "harness", "selftest", "--impl", "fake"), fuzz):
            result = run(folder, *argv)
            assert result.returncode == status, (argv, result.stdout[-2000:], result.stderr[-2000:])
            assert said in result.stderr, (argv, result.stderr[-2000:])


def test_a_sweep_that_was_interrupted_is_status_4_and_resumes(tmp_path: Path) -> None:
    """A sweep stopped by SIGINT writes its checkpoint and exits 4; the same command resumes and ends 0."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from suites.stand_ins import interruptible

    declare(tmp_path / "impls")
    checkpoint, report = tmp_path / "checkpoint.jsonl", tmp_path / "report.json"
    command = [sys.executable, "-m", "harness", "sweep", "--impls", "fake", "--templates", "alone", "--range",
               "U+0000..U+FFFF", "--workers", "1", "--checkpoint", str(checkpoint), "--report", str(report)]
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(tmp_path / "impls"))
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (checkpoint.exists() and checkpoint.stat().st_size > 0):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == INTERRUPTED, out[-2000:] + err[-2000:]
    resumed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert resumed.returncode == AGREE, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert json.loads(report.read_text())["ok"] is True


def test_commands_that_agree_end_with_status_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """lint, impls, expected check and check on the oracle: nothing new, status 0 (each prints its verdict)."""
    assert cli.main(["impls"]) == AGREE
    assert cli.main(["lint", "--no-regenerate"]) == AGREE
    assert cli.main(["check", "--impl", "reference", "--results", str(tmp_path / "r.json")]) == AGREE
    assert cli.main(["report", "show", str(tmp_path / "r.json")]) == AGREE
    assert cli.main(["report", "diff", str(tmp_path / "r.json"), str(tmp_path / "r.json")]) == AGREE
    assert "nothing changed" in capsys.readouterr().out


def test_a_promote_of_a_divergence_that_is_not_there_is_status_2(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    declare(tmp_path / "impls", bug="capitalize")
    report = tmp_path / "diff.json"
    found = run(tmp_path / "impls", "-m", "harness", "diff", "normalize_fact_text", "hello", "--impls", "fake",
                "--json")
    assert found.returncode == FOUND
    report.write_text(found.stdout)
    assert cli.main(["promote", "--report", str(report), "--index", "9", "--id", "x"]) == USAGE
    assert "--index must be 1..1" in capsys.readouterr().err


def test_a_reader_that_stops_reading_is_an_interruption_not_a_harness_bug(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`report show ... | head -1`: the pipe closes under the harness; that is status 4 (interrupted) with
    nothing on stderr, never an internal error (5) with a traceback."""
    from harness.model import status as statuses

    quieted = []
    monkeypatch.setattr(statuses, "_quiet_stdout", lambda: quieted.append(True))

    def main() -> int:
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(SystemExit) as done:
        statuses.exit_with(main)
    assert done.value.code == statuses.INTERRUPTED and quieted == [True]
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("argv", [["-q", "check"], ["check", "-q"]])
def test_quiet_prints_the_verdict_line_only(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            argv: list[str]) -> None:
    """Issue 36: -q (before or after the command) prints the verdict line alone, with the same exit status; a
    command without a verdict line is summed up by its status; an error is still said."""
    assert cli.main([*argv, "--impl", "reference", "--results", str(tmp_path / "r.json")]) == AGREE
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("reference: ") and lines[0].endswith(" fixture cases pass"), lines
    assert captured.err == ""
    assert cli.main(["-q", "report", "show", str(tmp_path / "r.json")]) == AGREE
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("verdict: all agree"), out
    assert cli.main(["-q", "diff", "normalize_fact_text", "A", "--impls", "reference"]) == AGREE
    assert capsys.readouterr().out == "diff: all agree (status 0)\n"
    assert cli.main(["-q", "check", "--impl", "nosuch"]) == USAGE
    captured = capsys.readouterr()
    assert "unknown implementation 'nosuch'" in captured.err
