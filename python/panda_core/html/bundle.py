"""The page's own scripts and style, made into one classic script and one scoped style sheet.

The web page loads its modules (``web/static/*.js``) as ES modules from the server. A notebook
output or a file opened from disk has no server, and an ES module cannot be inlined with its
imports, so :func:`script` rewrites the modules the board needs into one classic script: each
module runs in its own function scope, ``import {a, b} from "./x.js"`` becomes ``const {a, b} =
x's exports``, and the ``export`` keywords are dropped (each module's function returns its
exports). The files are read from the installed package at call time, so the page and these
views always draw the same cards.

:func:`scoped_css` is the page's ``style.css`` with every rule put under one container class
(:data:`SCOPE`), so that a notebook keeps its own look: ``:root``, ``html`` and ``body`` become
the container, every other selector is prefixed with it.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources

from panda_core.table.errors import TableError

__all__ = [
    "MODULES",
    "SCOPE",
    "HtmlError",
    "read_static",
    "scoped_css",
    "script",
    "script_and_key",
    "script_key",
]

SCOPE = "pc-html"
"""The class of the element every view is drawn in; the page's style applies only inside it."""

MODULES = ("util.js", "cards.js", "board.js")
"""The page's modules the board needs, in an order where each comes after those it imports."""

MAX_STATIC_BYTES = 512 * 1024
"""The largest page file read (the page's files are a few tens of KB)."""


class HtmlError(TableError):
    """An HTML view cannot be made (a page file the bundler cannot rewrite, a bad argument)."""


def read_static(name: str, folder: str = "web/static") -> str:
    """The text of one of the package's own files (``web/static/board.js``)."""
    path = resources.files("panda_core")
    for part in (*folder.split("/"), name):
        path = path / part
    try:
        data = path.read_bytes()
    except OSError as err:
        raise HtmlError(f"the page file {folder}/{name} cannot be read: {err}") from err
    if len(data) > MAX_STATIC_BYTES:
        raise HtmlError(f"the page file {folder}/{name} is over {MAX_STATIC_BYTES} bytes")
    return data.decode("utf-8")


# `import { a, b as c } from "./x.js";` (one or several lines)
_IMPORT = re.compile(r"^import\s*\{([^}]*)\}\s*from\s*[\"']\./([\w.-]+\.js)[\"']\s*;?[ \t]*$", re.M)
_ANY_IMPORT = re.compile(r"^\s*import\b", re.M)
# `export function f`, `export async function f`, `export class C`, `export const x` …
_EXPORT = re.compile(
    r"^export\s+((?:async\s+)?function\s*\*?\s*|class\s+|const\s+|let\s+|var\s+)([A-Za-z_$][\w$]*)",
    re.M,
)
_ANY_EXPORT = re.compile(r"^\s*export\b", re.M)
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")


def _imports(source: str, name: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """``source`` without its import lines, and what it imports: ``[(module, [names])]``."""
    found: list[tuple[str, list[str]]] = []

    def take(match: re.Match[str]) -> str:
        names = []
        for part in match.group(1).split(","):
            part = part.strip()
            if not part:
                continue
            pieces = part.split()
            if len(pieces) == 3 and pieces[1] == "as":
                names.append(f"{pieces[0]}: {pieces[2]}")
            elif len(pieces) == 1 and _NAME.match(pieces[0]):
                names.append(pieces[0])
            else:
                raise HtmlError(f"{name}: cannot bundle the import of {part!r}")
        found.append((match.group(2), names))
        return ""

    rest = _IMPORT.sub(take, source)
    if _ANY_IMPORT.search(rest):
        line = _ANY_IMPORT.search(rest)
        assert line is not None
        bad = rest[line.start() : rest.find("\n", line.start())].strip()
        raise HtmlError(f'{name}: only `import {{...}} from "./x.js"` is bundled, not {bad[:80]!r}')
    return rest, found


def _exports(source: str, name: str) -> tuple[str, list[str]]:
    """``source`` without its ``export`` keywords, and the names it exports."""
    names = [m.group(2) for m in _EXPORT.finditer(source)]
    rest = _EXPORT.sub(lambda m: m.group(1) + m.group(2), source)
    if _ANY_EXPORT.search(rest):
        line = _ANY_EXPORT.search(rest)
        assert line is not None
        bad = rest[line.start() : rest.find("\n", line.start())].strip()
        raise HtmlError(f"{name}: this export cannot be bundled: {bad[:80]!r}")
    return rest, names


def bundle(sources: dict[str, str]) -> str:
    """The modules ``sources`` (file name → text, in dependency order) as one classic script that
    defines ``__pandaModules`` (file name → exports) inside the caller's function scope."""
    out = ["const __pandaModules = {};"]
    done: set[str] = set()
    for name, text in sources.items():
        body, imported = _imports(text, name)
        body, exported = _exports(body, name)
        lines = [f"__pandaModules[{_js_string(name)}] = (function () {{", '"use strict";']
        for module, names in imported:
            if module not in done:
                raise HtmlError(f"{name} imports {module}, which is not bundled before it")
            if names:
                lines.append(
                    f"const {{ {', '.join(names)} }} = __pandaModules[{_js_string(module)}];"
                )
        lines.append(body.strip("\n"))
        lines.append(f"return {{ {', '.join(exported)} }};")
        lines.append("})();")
        out.append("\n".join(lines))
        done.add(name)
    return "\n".join(out)


def _js_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def script() -> str:
    """The page's board modules and the views' driver (``html/driver.js``) as one classic
    script, read from the installed package now. It defines
    ``window.PandaCoreHtml[key]`` (:func:`script_key`) once: a second copy in the same page
    (another output of the notebook) does nothing, and a notebook that made outputs with another
    version of the files keeps each version's own."""
    return script_and_key()[0]


def script_key() -> str:
    """The key of this bundle in ``window.PandaCoreHtml``: a digest of its text."""
    return script_and_key()[1]


def script_and_key() -> tuple[str, str]:
    modules = bundle({name: read_static(name) for name in MODULES})
    driver = read_static("driver.js", "html")
    key = hashlib.sha256((modules + driver).encode("utf-8")).hexdigest()[:16]
    text = (
        "(function () {\n"
        '"use strict";\n'
        "window.PandaCoreHtml = window.PandaCoreHtml || {};\n"
        f'const __pandaKey = "{key}";\n'
        "if (window.PandaCoreHtml[__pandaKey]) return;\n"
        f"{modules}\n"
        f"{driver}\n"
        "})();\n"
    )
    return inline_safe(text, "script"), key


# ---- the style sheet -----------------------------------------------------------------------


def scoped_css(css: str | None = None, scope: str = SCOPE) -> str:
    """``style.css`` (or ``css``) with every rule applying only inside ``.scope``."""
    text = read_static("style.css") if css is None else css
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return inline_safe(_scope_block(text, "." + scope), "style")


def _scope_block(text: str, scope: str) -> str:
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        brace = text.find("{", i)
        semi = text.find(";", i)
        if brace < 0:
            tail = text[i:].strip()
            if tail and not tail.startswith("}"):
                raise HtmlError(f"style.css: cannot read {tail[:60]!r}")
            break
        if 0 <= semi < brace and text[i:semi].strip().startswith("@"):
            rule = text[i:semi].strip()
            # an at-rule without a block (@import, @charset): an @import would load a file
            raise HtmlError(f"style.css: {rule[:60]!r} is not inlined (a view loads nothing)")
        head = text[i:brace].strip()
        end = _matching(text, brace)
        inner = text[brace + 1 : end]
        if head.startswith("@"):
            word = head.split()[0].lower()
            if word in ("@media", "@supports", "@container", "@layer"):
                out.append(f"{head} {{\n{_scope_block(inner, scope)}}}\n")
            elif word in ("@keyframes", "@-webkit-keyframes", "@font-face", "@property"):
                if "url(" in inner.lower():
                    raise HtmlError(f"style.css: {head[:40]!r} loads a file")
                out.append(f"{head} {{{inner}}}\n")
            else:
                raise HtmlError(f"style.css: the at-rule {word!r} is not scoped")
        else:
            if "url(" in inner.lower() and "url(data:" not in inner.lower().replace(" ", ""):
                raise HtmlError(f"style.css: the rule {head[:40]!r} loads a file")
            out.append(f"{_scope_selectors(head, scope)} {{{inner}}}\n")
        i = end + 1
    return "".join(out)


def _matching(text: str, start: int) -> int:
    depth = 0
    quote = ""
    for j in range(start, len(text)):
        c = text[j]
        if quote:
            if c == quote and text[j - 1] != "\\":
                quote = ""
            continue
        if c in "\"'":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
    raise HtmlError("style.css: a block is not closed")


def _split_selectors(head: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for c in head:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return [" ".join(p.split()) for p in parts if p.strip()]


def _scope_selectors(head: str, scope: str) -> str:
    scoped = []
    for sel in _split_selectors(head):
        first, _, rest = sel.partition(" ")
        base = re.match(r"^(:root|html|body)(?=$|[.:\[#])", first)
        if base:
            scoped.append((scope + first[base.end() :] + (" " + rest if rest else "")).strip())
        elif sel == "*":
            scoped.append(f"{scope}, {scope} *")
        else:
            scoped.append(f"{scope} {sel}")
    return ", ".join(scoped)


def inline_safe(text: str, tag: str) -> str:
    """``text`` checked to be safe inside ``<tag>…</tag>``: it must not close the element or
    open an HTML comment (the page's own files never do)."""
    lower = text.lower()
    for bad in (f"</{tag}", "<!--"):
        if bad in lower:
            raise HtmlError(f"a page file holds {bad!r}, which cannot be inlined in <{tag}>")
    return text
