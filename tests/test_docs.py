"""The docs match the project (issue 23, build item 4): a short README with the two commands of a fresh
machine, the rest in ``docs/``; every relative link lands on a file and an anchor that exist; every
config key and every registered command is documented; the code's citations of the contracts point
into ``docs/``; ``docs/architecture.md`` names what the code has."""

from __future__ import annotations

import importlib
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from bot.config import section_keys
from bot.core.game import CombatRules
from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted([README, *DOCS.rglob("*.md")])
README_LIMIT = 20 * 1024
FRESH_MACHINE = (
    "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/rolbot console --gm @master:local --db rolbot.db",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -q",
)
"""The README's two commands for a fresh machine: CI and checks outside the project run them as they are."""

LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6}) +(.+?) *$", re.MULTILINE)
EXPLICIT_ANCHOR = re.compile(r"<a id=\"([^\"]+)\"></a>")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CITATION = re.compile(r"\bdocs/([\w./-]+\.md)(?:#([\w.-]*\w))?")
"""``docs/contracts.md#3.2`` as the code and the docs cite a page or one of its sections."""


def _prose(page: Path) -> str:
    """The page without its code blocks (a ``# comment`` in a shell block is no heading)."""
    return FENCE.sub("", page.read_text(encoding="utf-8"))


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, no markup or punctuation, spaces as dashes."""
    text = EXPLICIT_ANCHOR.sub("", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = _prose(page)
    found: set[str] = set(EXPLICIT_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for _level, heading in HEADING.findall(text):
        slug = _slug(heading)
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found


def test_the_readme_is_short() -> None:
    size = len(README.read_bytes())
    assert size < README_LIMIT, f"README.md is {size} bytes; the manuals belong in docs/"


def test_the_readme_keeps_the_two_commands_of_a_fresh_machine() -> None:
    blocks = re.findall(r"^```sh\n(.*?)\n```", README.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    assert blocks[:2] == list(FRESH_MACHINE)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_lands_on_a_file_and_anchor_that_exist(page: Path) -> None:
    for target in LINK.findall(_prose(page)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: link to a missing {target}"
        if anchor:
            assert linked.suffix == ".md" and anchor in anchors(linked), f"{page.name}: no anchor for {target}"


def _tracked_text() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    return [ROOT / name for name in listed if name.endswith((".py", ".md", ".txt", ".html", ".toml", ".j2"))
            or name in (".ci/run", "systemd/rolbot.service")]


def test_every_citation_of_the_docs_points_to_a_page_and_section_that_exist() -> None:
    """The code cites the contracts as ``docs/contracts.md#3.2``: the page is there, with that anchor."""
    cited = 0
    for source in _tracked_text():
        if not source.is_file():
            continue
        for page, anchor in CITATION.findall(source.read_text(encoding="utf-8", errors="replace")):
            target = DOCS / page
            assert target.is_file(), f"{source.relative_to(ROOT)} cites a missing docs/{page}"
            assert not anchor or anchor in anchors(target), f"{source.relative_to(ROOT)}: no «{anchor}» in docs/{page}"
            cited += 1
    assert cited > 0


def test_the_docs_cite_no_file_outside_the_repository() -> None:
    """The contracts are the project's own words in ``docs/``: nothing points at a design file it lacks."""
    for page in PAGES:
        assert "DESIGN" not in page.read_text(encoding="utf-8"), page.relative_to(ROOT)


def _docs_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in DOCS.rglob("*.md"))


def test_every_config_key_is_documented() -> None:
    text = _docs_text()
    for section, keys in section_keys().items():
        if section != "rooms":
            assert f"[{section}]" in text, f"[{section}] is in no page of docs/"
        for key in keys:
            documented = re.search(rf"`[^`\n]*\b{key}\b[^`\n]*`|^#? ?{key} = ", text, re.MULTILINE)
            assert documented, f"[{section}] {key} is in no page of docs/"


def test_every_registered_command_is_documented() -> None:
    text = _docs_text()
    groups = [("core", ROOM_COMMANDS), *((game.key, game.commands) for game in GAMES)]
    missing = [f"{where}: !{name}" for where, group in groups for command in group for name in command.names
               if not re.search(rf"[!/]{re.escape(name)}\b", text)]
    assert missing == []


def test_the_architecture_names_every_combat_hook() -> None:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    hooks = [name for name in vars(CombatRules) if not name.startswith("_")]
    assert len(hooks) >= 5 and [h for h in hooks if f"`{h}`" not in text] == []


def test_the_architectures_folder_table_names_what_exists() -> None:
    """Each row of «What each folder owns» names files and folders of today's tree."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## What each folder owns", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert rows
    for row in rows:
        first = row.split("|")[1]
        named = re.findall(r"`([^`]+)`", first)
        base = ""
        for name in named:
            name = name.replace("<game>", "savage")
            path = ROOT / name if "/" in name else ROOT / base / name
            assert path.exists(), f"architecture.md names {name}, which does not exist"
            base = str(Path(name).parent) if "/" in name else base



def test_the_readme_tours_the_gms_screen_into_the_gms_manual() -> None:
    """``!pantalla`` (issue 24) has its place: a line of the README's tour and a section of docs/gm.md."""
    readme = README.read_text(encoding="utf-8")
    items = readme.split("\n- ")
    assert any("`!pantalla`" in item and re.search(r"\]\(docs/gm\.md#[\w-]+\)", item) for item in items)
    assert any("pantalla" in slug for slug in anchors(DOCS / "gm.md"))


EXAMPLES = ("hexagono", "hexchat", "juguete")
"""The made-up game and network of «Adding a game» and «Adding a transport», and the toy game its test writes in a
temporary folder: files not in the tree."""
PLACEHOLDERS = {"<game>": "savage", "<transport>": "matrix"}
CITED_PATH = re.compile(r"`((?:bot|systems|templates|tests|docs|bench)/[\w./<>-]*)`")
CITED_NAME = re.compile(r"`((?:bot|systems)(?:\.\w+)+)")
"""``bot.games.GAMES``, ``bot.core.sheets.play_in``: a module and, maybe, a name in it."""


def _architecture() -> str:
    return (DOCS / "architecture.md").read_text(encoding="utf-8")


def _resolves(dotted: str) -> bool:
    """``dotted`` is a module of the project, or a name defined in one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 1, -1):
        module = ROOT.joinpath(*parts[:cut])
        if module.is_dir() or module.with_suffix(".py").is_file():
            found: object = importlib.import_module(".".join(parts[:cut]))
            for attribute in parts[cut:]:
                if not hasattr(found, attribute):
                    return False
                found = getattr(found, attribute)
            return True
    return False


def test_every_path_and_module_the_architecture_cites_exists() -> None:
    """Every ``bot/core/work.py`` or ``bot.core.work`` the page names, in backticks, is in today's tree."""
    text = _architecture()
    missing = []
    for name in CITED_PATH.findall(text):
        if any(example in name for example in EXAMPLES):
            continue
        for placeholder, value in PLACEHOLDERS.items():
            name = name.replace(placeholder, value)
        if not (ROOT / name).exists():
            missing.append(name)
    missing += [dotted for dotted in CITED_NAME.findall(text) if not _resolves(dotted)]
    assert missing == []


def test_the_architectures_folder_table_names_every_module_once() -> None:
    """Every module of ``bot/`` outside the games (whose layout ``tests/games/test_layout.py`` keeps) has its
    place in «What each folder owns»: a row of its own or of its folder (the modules of ``bot/matrix/`` and
    ``bot/irc/`` named in their row), and no row is there twice."""
    table = _architecture().split("## What each folder owns", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in table.splitlines() if line.startswith("| `")]
    named: list[str] = []
    for first, owns in rows:
        base = ""
        for name in re.findall(r"`([^`]+)`", first):
            base = str(Path(name).parent) if "/" in name else base
            named.append(name if "/" in name else f"{base}/{name}")
            if name.endswith("/") and name.count("/") == 2 and name.startswith("bot/") and "<" not in name:
                named += [f"{name}{module}.py" for module in re.findall(r"`(\w+)`", owns)]
    assert sorted(n for n in set(named) if named.count(n) > 1) == []
    modules = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "bot").rglob("*.py"))
               if path.name != "__init__.py" and "games" not in path.parts]
    unplaced = [m for m in modules if m not in named and not any(n.endswith("/") and m.startswith(n)
                                                               and n.count("/") > 2 for n in named)]
    assert unplaced == []


DESIGN_CITATION = re.compile(r"\bDESIGN(?:\.md)? +\d")


def test_the_code_cites_the_contracts_in_docs_not_a_design_file() -> None:
    """``docs/contracts.md#3.4``, never a section of the design file, which is not in the repository."""
    citing = [str(source.relative_to(ROOT)) for source in _tracked_text() if source.is_file()
              and DESIGN_CITATION.search(source.read_text(encoding="utf-8", errors="replace"))]
    assert citing == []


README_SECTION = re.compile(r"README\b[^\n]{0,16}(?:«|section)")
"""A pointer at a part of the README (named in guillemets, or as a section) that the split moved into ``docs/``."""


def test_nothing_points_at_a_readme_section_that_moved() -> None:
    sources = [source for source in _tracked_text() if source.is_file() and source != Path(__file__).resolve()]
    assert [str(source.relative_to(ROOT)) for source in sources
            if README_SECTION.search(source.read_text(encoding="utf-8", errors="replace"))] == []
