"""harness/testees/command.py and its parts: each part a module that says which part it is, CommandTestee their
assembly with no method in two of them (the method resolution order never decides between two bodies), no import
cycle among the testees' modules (a part never reaches back to the assembly), and every name the project imports
from harness.testees.command still there."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from harness.testees import command

ROOT = Path(__file__).resolve().parents[2]
TESTEES = ROOT / "harness" / "testees"
# part -> the words its module's docstring names it by, in its first sentence
PARTS = {
    "process": "testee's process",
    "lines": "line reader",
    "handshake": "start handshake",
    "lifecycle": "lifecycle",
    "exchange": "exchanges",
    "verdicts": "verdict stage",
}


def _first_sentence(text: str) -> str:
    return " ".join(text.split()).split(": ")[0]


def test_each_part_names_itself_and_the_assembly_names_each_part() -> None:
    for part, words in PARTS.items():
        doc = ast.get_docstring(ast.parse((TESTEES / f"{part}.py").read_text(encoding="utf-8"))) or ""
        assert words in _first_sentence(doc), (part, _first_sentence(doc))
        assert "harness/testees/command.py" in _first_sentence(doc), part
        assert f"harness/testees/{part}.py" in (command.__doc__ or ""), f"command.py's docstring does not name {part}"
    assembled = {inspect.getmodule(base).__name__.rsplit(".", 1)[-1]  # type: ignore[union-attr]
                 for base in command.CommandTestee.__mro__[1:-1]}
    assert assembled <= set(PARTS), assembled - set(PARTS)


def test_no_method_is_defined_in_two_parts() -> None:
    owners: dict[str, list[str]] = {}
    for klass in command.CommandTestee.__mro__[:-1]:
        for name in vars(klass):
            if not (name.startswith("__") and name.endswith("__")):
                owners.setdefault(name, []).append(klass.__name__)
    assert {name: where for name, where in owners.items() if len(where) > 1} == {}


def _imports(path: Path) -> set[str]:
    """The harness.testees modules ``path`` imports (at any place, under TYPE_CHECKING too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "harness.testees":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("harness.testees."):
            found.add(node.module.split(".")[2])  # type: ignore[union-attr]
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[2] for alias in node.names if alias.name.startswith("harness.testees.")}
    return found


def test_the_testees_modules_import_no_cycle_and_no_part_imports_the_assembly() -> None:
    graph = {path.stem: _imports(path) for path in TESTEES.glob("*.py")}
    for part in PARTS:
        assert "command" not in graph[part], f"{part}.py imports command.py, the assembly of the parts"
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, "an import cycle: " + " -> ".join([*path[path.index(module):], module])
        if module in done:
            return
        for imported in sorted(graph.get(module, ())):
            visit(imported, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_every_name_imported_from_the_client_is_still_there() -> None:
    """What the harness and the suites import from harness.testees.command (names, or ``command.NAME``), which
    the client's parts now define, is re-exported by it."""
    wanted: set[tuple[str, str]] = set()
    sources = [ROOT / "noxfile.py", *(path for top in ("harness", "suites", "generators", "pyodide_host", "wasm_host")
                                     for path in (ROOT / top).rglob("*.py"))]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        if "harness.testees.command" not in text and "from harness.testees import" not in text:
            continue  # neither import is in it: not parsed (parsing every file took a second)
        tree = ast.parse(text)
        as_module = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "harness.testees.command":
                wanted |= {(alias.name, str(path.relative_to(ROOT))) for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module == "harness.testees":
                as_module |= {alias.asname or alias.name for alias in node.names if alias.name == "command"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in as_module:
                wanted.add((node.attr, str(path.relative_to(ROOT))))
    assert {name for name, _ in wanted} >= {"CommandTestee", "BATCH", "op_table"}, wanted  # the search finds them
    assert sorted((name, where) for name, where in wanted if not hasattr(command, name)) == []
    assert sorted(name for name in command.__all__ if not hasattr(command, name)) == []
