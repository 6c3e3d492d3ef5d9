"""Check that CI's test runs together executed every test of the suite, each once.

Usage: ``python .ci/count_tests.py RUN.xml...`` (the JUnit XML files of pytest's runs). The suite
is what ``python -m pytest --collect-only -q`` collects here; a test counts as run when a report
names it (passed, failed, errored or skipped: pytest's own exit status judged those).
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def junit_name(node_id: str) -> str:
    """``tests/test_x.py::Class::test_y[p]`` as JUnit's ``tests.test_x.Class::test_y[p]``."""
    path, *scopes = node_id.split("::")
    *classes, name = scopes
    return ".".join([path.removesuffix(".py").replace("/", "."), *classes]) + "::" + name


def collected() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    if done.returncode != 0 or not ids:
        sys.exit(f"collecting the suite failed (exit status {done.returncode}):\n{done.stdout}")
    return [junit_name(i) for i in ids]


def ran(reports: list[str]) -> Counter[str]:
    names: Counter[str] = Counter()
    for report in reports:
        for case in ET.parse(report).iter("testcase"):
            names[f"{case.get('classname')}::{case.get('name')}"] += 1
    return names


def main() -> None:
    suite = collected()
    runs = ran(sys.argv[1:])
    twice = sorted(name for name, count in runs.items() if count > 1)
    missing = sorted(set(suite) - set(runs))
    extra = sorted(set(runs) - set(suite))
    print(f"the suite holds {len(suite)} tests; CI's runs reported {sum(runs.values())}")
    for label, names in (
        ("ran more than once", twice),
        ("never ran", missing),
        ("not in the suite", extra),
    ):
        if names:
            print(f"{len(names)} {label}:", *names[:20], sep="\n  ")
    if twice or missing or extra:
        sys.exit(1)


if __name__ == "__main__":
    main()
