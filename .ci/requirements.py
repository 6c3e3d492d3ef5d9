"""Print the requirements of pyproject.toml's extras, one a line, for ``pip install -r``.

Usage: ``python .ci/requirements.py EXTRA... [--only NAME,...]``. The project's own extras
(``panda-core[test]`` inside ``dev``) are expanded in place, so CI installs every dependency
without building the package: the lint and type checks run before the Rust build, and the build
happens once. ``--only`` keeps the named distributions (``--only ruff,mypy``).
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")


def requirements(extras: list[str]) -> list[str]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    own, table = project["name"], project["optional-dependencies"]
    found: list[str] = list(project["dependencies"])
    pending, seen = list(extras), set()
    while pending:
        extra = pending.pop(0)
        if extra in seen:
            continue
        if extra not in table:
            raise SystemExit(f"pyproject.toml has no extra {extra!r} (it has {', '.join(table)})")
        seen.add(extra)
        for requirement in table[extra]:
            match = NAME.match(requirement)
            if match and match.group(1) == own:  # panda-core[a,b]: those extras, not a package
                pending += [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]
            elif requirement not in found:
                found.append(requirement)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("extras", nargs="+")
    parser.add_argument("--only", help="comma-separated distribution names to keep")
    args = parser.parse_args()
    found = requirements(args.extras)
    if args.only:
        keep = {name.strip().lower() for name in args.only.split(",")}
        found = [r for r in found if (m := NAME.match(r)) and m.group(1).lower() in keep]
        missing = keep - {m.group(1).lower() for r in found if (m := NAME.match(r))}
        if missing:
            raise SystemExit(f"not in those extras: {', '.join(sorted(missing))}")
    print("\n".join(found))


if __name__ == "__main__":
    main()
