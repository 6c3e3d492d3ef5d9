"""benches/ab.py without real builds: the round order, the ratio and median arithmetic, the
cache's marker (a half-written entry is rebuilt), revision errors, --list, Ctrl-C and timeouts.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

BENCHES = Path(__file__).resolve().parent.parent / "benches"
sys.path.insert(0, str(BENCHES))

import ab  # noqa: E402
import ab_cases  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")  # a non-abi3 build, as 97a3c3f's


def fake_build(label: str) -> ab.Build:
    return ab.Build(label, label, COMMIT, Path(f"/builds/{label}"))


def test_rounds_alternate_which_build_runs_first() -> None:
    assert ab.schedule(3, ["x", "y"]) == [
        (1, "x", "base"),
        (1, "x", "head"),
        (1, "y", "base"),
        (1, "y", "head"),
        (2, "x", "head"),
        (2, "x", "base"),
        (2, "y", "head"),
        (2, "y", "base"),
        (3, "x", "base"),
        (3, "x", "head"),
        (3, "y", "base"),
        (3, "y", "head"),
    ]


def test_measure_runs_in_schedule_order_and_takes_the_median_of_per_round_ratios() -> None:
    # HEAD/BASE per round: 2/1, 3/2, 1/4 -> ratios 2.0, 1.5, 0.25; median 1.5.
    rates = {("base", 1): 1.0, ("head", 1): 2.0, ("base", 2): 2.0, ("head", 2): 3.0}
    rates |= {("base", 3): 4.0, ("head", 3): 1.0}
    calls: list[tuple[str, str]] = []
    counter = {"x": 0}

    def runner(case: str, build: ab.Build) -> dict[str, Any]:
        calls.append((case, build.label))
        counter["x"] += 1
        r = (counter["x"] + 1) // 2
        return {"rate": rates[(build.label, r)]}

    builds = {"base": fake_build("base"), "head": fake_build("head")}
    out = ab.measure(["head_batch"], builds, 3, runner, log=lambda _: None)
    assert calls == [(c, b) for _, c, b in ab.schedule(3, ["head_batch"])]
    res = out["head_batch"]
    assert [r["ratio"] for r in res["rounds"]] == [2.0, 1.5, 0.25]
    assert [r["first"] for r in res["rounds"]] == ["base", "head", "base"]
    assert res["median_ratio"] == 1.5
    assert (res["min_ratio"], res["max_ratio"]) == (0.25, 2.0)
    assert res["head_median_rate"] == 2.0  # median of 2, 3, 1
    assert res["base_median_rate"] == 2.0  # median of 1, 2, 4
    assert res["unit"] == "decisions"


def test_a_round_with_na_has_no_ratio_and_the_medians_skip_it() -> None:
    rounds: list[dict[str, Any]] = [
        {"ratio": 1.2, "head": {"rate": 12.0}, "base": {"rate": 10.0}},
        {"ratio": None, "head": {"rate": 9.0}, "base": {"na": "AttributeError: x"}},
        {"ratio": 1.0, "head": {"rate": 8.0}, "base": {"rate": 8.0}},
        {"ratio": 0.8, "head": {"rate": 8.0}, "base": {"rate": 10.0}},
    ]
    s = ab.summarize(rounds)
    assert s["median_ratio"] == 1.0
    assert s["head_median_rate"] == 8.5  # even count: the mean of the middle two
    assert s["base_median_rate"] == 10.0
    assert ab.ratio({"rate": 3.0}, {"na": "x"}) is None
    assert ab.ratio({"rate": 3.0}, {"rate": 2.0}) == 1.5
    none = ab.summarize([{"ratio": None, "head": {"na": "x"}, "base": {"na": "y"}}])
    assert none == dict.fromkeys(none, None)


def test_the_table_shows_each_round_and_says_why_a_build_was_na() -> None:
    rounds = [
        {"round": 1, "first": "base", "ratio": None, "head": {"rate": 5e6}, "base": {"na": "no"}},
        {"round": 2, "first": "head", "ratio": None, "head": {"rate": 5e6}, "base": {"na": "no"}},
    ]
    res = {"unit": "decisions", "rounds": rounds, **ab.summarize(rounds)}
    ok = [
        {"round": 1, "first": "base", "ratio": 1.25, "head": {"rate": 5.0}, "base": {"rate": 4.0}},
        {"round": 2, "first": "head", "ratio": 0.75, "head": {"rate": 3.0}, "base": {"rate": 4.0}},
    ]
    text = ab.table(
        {"neural_year": res, "head_batch": {"unit": "x", "rounds": ok, **ab.summarize(ok)}}, 2
    )
    lines = text.splitlines()
    assert lines[0] == "| case | unit | r1 | r2 | median | min..max | HEAD /s | BASE /s |"
    assert lines[2] == "| neural_year | decisions | n/a | n/a | n/a | n/a | 5 M | n/a |"
    assert lines[3] == "| head_batch | x | 1.250 | 0.750 | 1.000 | 0.750..1.250 | 4 | 4 |"
    assert "neural_year: n/a on BASE: no" in lines
    assert not any("different work" in line for line in lines)


def test_the_table_says_when_the_builds_played_different_games() -> None:
    rounds = [
        {
            "round": 1,
            "ratio": 1.0,
            "head": {"rate": 2.0, "units": 100},
            "base": {"rate": 2.0, "units": 100},
        },
        {
            "round": 2,
            "ratio": 1.0,
            "head": {"rate": 2.0, "units": 100},
            "base": {"rate": 2.0, "units": 98},
        },
    ]
    text = ab.table(
        {"head_batch": {"unit": "decisions", "rounds": rounds, **ab.summarize(rounds)}}, 2
    )
    assert "head_batch: the builds did different work (100 vs 98 decisions in round 2)" in text


def fake_wheel(out_dir: Path, marker: str = "built") -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / "panda_core-0.0.0-cp311-abi3-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("panda_core/__init__.py", f"# {marker}\n")
        zf.writestr(f"panda_core/_core{SUFFIX}", "not really")
        zf.writestr("panda_core-0.0.0.dist-info/METADATA", "Name: panda-core\n")
    return wheel


def test_a_build_is_cached_and_reused(tmp_path: Path) -> None:
    built: list[str] = []

    def builder(commit: str, out: Path, log: Any) -> Path:
        built.append(commit)
        return fake_wheel(out)

    entry = ab.ensure_build(COMMIT, root=tmp_path, builder=builder, log=lambda _: None)
    assert entry == tmp_path / COMMIT
    assert (entry / "panda_core" / "__init__.py").read_text() == "# built\n"
    assert (entry / ab.MARKER).is_file()
    assert not (entry / "panda_core-0.0.0.dist-info").exists()  # only the package
    assert not (entry / "wheel").exists()
    assert ab.ensure_build(COMMIT, root=tmp_path, builder=builder, log=lambda _: None) == entry
    assert built == [COMMIT]
    assert sorted(p.name for p in tmp_path.iterdir()) == [COMMIT]  # no staging left


def test_a_half_written_entry_is_rebuilt(tmp_path: Path) -> None:
    entry = tmp_path / COMMIT / "panda_core"
    entry.mkdir(parents=True)
    (entry / "__init__.py").write_text("# half\n")  # unpacked, but no marker: interrupted
    logged: list[str] = []

    def builder(commit: str, out: Path, log: Any) -> Path:
        return fake_wheel(out, "fresh")

    got = ab.ensure_build(COMMIT, root=tmp_path, builder=builder, log=logged.append)
    assert (got / "panda_core" / "__init__.py").read_text() == "# fresh\n"
    assert any("incomplete" in line for line in logged)


def test_a_marker_without_the_package_is_not_trusted(tmp_path: Path) -> None:
    (tmp_path / COMMIT).mkdir()
    (tmp_path / COMMIT / ab.MARKER).write_text("{}")
    assert not ab.is_complete(tmp_path / COMMIT)
    got = ab.ensure_build(
        COMMIT, root=tmp_path, builder=lambda c, o, log: fake_wheel(o), log=lambda _: None
    )
    assert ab.is_complete(got)


def test_an_extension_for_another_python_is_rebuilt(tmp_path: Path) -> None:
    entry = tmp_path / COMMIT
    (entry / "panda_core").mkdir(parents=True)
    (entry / "panda_core" / "__init__.py").write_text("")
    (entry / "panda_core" / "_core.cpython-29-x86_64-linux-gnu.so").write_text("")
    (entry / ab.MARKER).write_text("{}")
    assert not ab.is_complete(entry)
    (entry / "panda_core" / "_core.abi3.so").write_text("")
    assert ab.is_complete(entry)


def test_a_failed_build_leaves_no_entry(tmp_path: Path) -> None:
    def builder(commit: str, out: Path, log: Any) -> Path:
        fake_wheel(out)
        raise ab.AbError("maturin build failed")

    with pytest.raises(ab.AbError, match="maturin build failed"):
        ab.ensure_build(COMMIT, root=tmp_path, builder=builder, log=lambda _: None)
    assert list(tmp_path.iterdir()) == []


def test_a_wheel_without_the_extension_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("panda_core/__init__.py", "")
    with pytest.raises(ab.AbError, match=r"no compiled panda_core\._core"):
        ab.unpack_package(wheel, tmp_path / "out")


def test_the_cache_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PANDA_CORE_AB_CACHE", "/somewhere/ab")
    assert ab.cache_root() == Path("/somewhere/ab")
    monkeypatch.delenv("PANDA_CORE_AB_CACHE")
    assert ab.cache_root() == Path.home() / ".cache" / "panda-core" / "ab"


def test_revisions_resolve_to_full_commits_and_unknown_ones_are_refused() -> None:
    head = ab.resolve("HEAD")
    assert len(head) == 40 and all(c in "0123456789abcdef" for c in head)
    with pytest.raises(ab.AbError, match="unknown revision 'no-such-branch-xyz'"):
        ab.resolve("no-such-branch-xyz")
    with pytest.raises(ab.AbError, match="not a git revision"):
        ab.resolve("--all")
    with pytest.raises(ab.AbError, match="not a git revision"):
        ab.resolve("")


def test_main_refuses_an_unknown_revision_before_building(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_build(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("nothing may be built for an unknown revision")

    monkeypatch.setattr(ab, "ensure_build", no_build)
    assert ab.main(["deadbeefdeadbeef", "--rounds", "1"]) == 2
    err = capsys.readouterr().err
    assert "ab.py: error: unknown revision 'deadbeefdeadbeef'" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give BASE"),
        (["HEAD", "--rounds", "0"], "--rounds must be at least 1"),
        (["HEAD", "--cases", "head_batch,nope"], "unknown case(s) ['nope']"),
    ],
)
def test_main_refuses_bad_arguments(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ab.main(argv) == 2
    assert message in capsys.readouterr().err


def test_list_names_every_case_without_a_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert ab.main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == list(ab_cases.CASES)
    assert all(len(line.split(maxsplit=1)) == 2 for line in out)  # each with its description
    assert "head_batch" in ab_cases.CASES and "neural_year" in ab_cases.CASES


def test_main_runs_the_rounds_and_writes_the_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(ab, "ensure_build", lambda commit, log: tmp_path / commit)

    def runner(case: str, build: ab.Build) -> dict[str, Any]:
        return {"rate": 2.0 if build.label == "head" else 1.0, "units": 2.0, "seconds": 1.0}

    out = tmp_path / "ab.json"
    argv = [
        "HEAD",
        "HEAD",
        "--cases",
        "head_batch,vector_year",
        "--rounds",
        "2",
        "--json",
        str(out),
    ]
    assert ab.main(argv, runner=runner) == 0
    text = capsys.readouterr().out
    assert "| head_batch | decisions | 2.000 | 2.000 | 2.000 | 2.000..2.000 | 2 | 1 |" in text
    import json

    record = json.loads(out.read_text())
    assert record["base"]["commit"] == ab.resolve("HEAD")
    assert record["head"]["revision"] == "HEAD"
    assert record["rounds"] == 2 and set(record["cases"]) == {"head_batch", "vector_year"}
    assert record["host"]["cpus"] >= 1


def sleeper(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[str]]:
    """Cases that sleep for a minute; returns the list their processes are put in."""
    procs: list[subprocess.Popen[str]] = []
    real = subprocess.Popen

    def popen(cmd: list[str], **kwargs: Any) -> subprocess.Popen[str]:
        proc = real([sys.executable, "-c", "import time; time.sleep(60)"], **kwargs)
        procs.append(proc)
        return proc

    monkeypatch.setattr("ab.subprocess.Popen", popen)
    return procs


def test_ctrl_c_kills_the_case_process(monkeypatch: pytest.MonkeyPatch) -> None:
    procs = sleeper(monkeypatch)

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("ab.time.sleep", interrupted)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        ab.run_case("head_batch", ab.Build("head", "x", COMMIT, BENCHES))
    assert time.monotonic() - started < 0.5
    assert procs[0].poll() is not None  # killed and reaped, not left sleeping


def test_a_case_that_hangs_is_na_after_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    procs = sleeper(monkeypatch)
    monkeypatch.setattr(ab, "CASE_TIMEOUT", 0.2)
    got = ab.run_case("head_batch", ab.Build("head", "x", COMMIT, BENCHES))
    assert got == {"na": "timed out after 0.2 s"}
    assert procs[0].poll() is not None


def test_a_build_names_its_extension_by_hash(tmp_path: Path) -> None:
    (tmp_path / "panda_core").mkdir()
    assert ab.Build("head", "x", COMMIT, tmp_path).extension == "none"
    (tmp_path / "panda_core" / "_core.abi3.so").write_bytes(b"abc")
    # sha256(b"abc") = ba7816bf8f01cfea...
    assert ab.Build("head", "x", COMMIT, tmp_path).extension == "ba7816bf8f01"


def test_help_says_head_defaults_to_the_working_tree(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        ab.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "default: this checkout's working tree as it is" in out
    assert "python/panda_core" in out


def test_a_case_is_called_once_to_warm_up_and_a_failure_is_na(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def counted() -> tuple[float, float]:
        calls.append(1)
        return float(10 * len(calls)), 2.0

    def broken() -> tuple[float, float]:
        raise AttributeError("type object 'HeadGame' has no attribute 'legal_actions'")

    monkeypatch.setitem(ab_cases.CASES, "counted", counted)
    monkeypatch.setitem(ab_cases.CASES, "broken", broken)
    got = ab_cases.run("counted")
    assert (got["units"], got["seconds"], got["rate"]) == (20.0, 2.0, 10.0)  # the second call
    assert got["panda_core"].endswith("__init__.py")
    assert ab_cases.run("broken")["na"].startswith("AttributeError: type object 'HeadGame'")
