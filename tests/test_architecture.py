"""The shape of the package: public surface, dependency direction, CLI help."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import memdir
from memdir.cli import COMMANDS, main

SRC = Path(memdir.__file__).parent

PUBLIC = {
    "ConfigError", "Conflict", "DiskFull", "InvalidMemory", "LimitExceeded", "LockTimeout",
    "Memdir", "MemdirError", "Memory", "MemoryExists", "MemoryNotFound", "MemoryRecord",
    "MemoryStore", "MemoryType", "ParseError", "ProjectMismatch", "ProviderError", "Scope",
    "SecretDetected", "Settings", "StorageError", "SyncError", "UnsafePath", "WriteResult",
    "load_settings",
}  # fmt: skip


def test_public_names_are_exactly_the_guarded_list() -> None:
    assert set(memdir.__all__) == PUBLIC
    for name in memdir.__all__:
        assert getattr(memdir, name) is not None


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_one_version_string_is_what_the_package_and_the_cli_report(flag: str) -> None:
    import importlib.metadata
    import tomllib

    pyproject = tomllib.loads((SRC.parent.parent / "pyproject.toml").read_text())
    assert "version" in pyproject["project"]["dynamic"]  # read from memdir/__init__.py
    assert memdir.__version__ == importlib.metadata.version("memdir")
    result = CliRunner().invoke(main, [flag])
    assert result.exit_code == 0
    assert result.output == f"memdir, version {memdir.__version__}\n"


def test_every_public_error_derives_from_memdir_error() -> None:
    for name in memdir.__all__:
        value = getattr(memdir, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, memdir.MemdirError), name


# Layers, lowest first: a module may import its own layer or lower ones only. A
# module's layer is its room (its folder under memdir/); the few top-level modules
# are named. Each capability is a room: the store, its history and review, rule
# enforcement, transcripts; the hook machinery and the hosts among the adapters.
ORDER = [
    "values",
    "storage",
    "transcripts",
    "enforcement",
    "screening",
    "history",
    "llm",
    "search",
    "recall",
    "agents",
    "team",
    "facade",
    "adapters",
]
ROOMS = {"utils": "values", "sync": "team"} | {layer: layer for layer in ORDER}
TOP_LEVEL = {
    "errors": "values",
    "model": "values",
    "config": "values",
    "kinds": "values",
    "testing": "llm",  # the shipped scripted provider
    "api": "facade",
    "memdir": "facade",  # the package's __init__ re-exports the facade
    "__main__": "adapters",
    "hook_launcher": "adapters",
}
ADAPTERS = {"cli", "mcp", "hooks", "hosts", "ui"}
# Adapters never import each other, but for these: the CLI is the outermost entry point
# (it starts the MCP server and the page, runs the hooks, installs into the hosts), the
# hosts' installers check the hook machinery they install, and the two scripts start
# the CLI, the hooks or the stdio MCP server.
ADAPTER_IMPORTS = {
    "cli": ADAPTERS,
    "hosts": {"hooks"},
    "__main__": {"cli", "hooks", "mcp"},
    "hook_launcher": {"__main__"},
}
# Third-party packages each allowed only inside some areas: the Anthropic memory
# tool backend subclasses the SDK's own abstract memory tool.
OWNED_IMPORTS = {
    "click": {"cli"},
    "rich": {"cli"},
    "mcp": {"mcp"},
    "jinja2": {"ui"},
    "anthropic": {"llm", "hosts"},
    "openai": {"llm"},
}
# The most modules one room holds, and the most that stand at the top.
MAX_ROOM = 25
MAX_TOP_LEVEL = 10


def area_of(module: str) -> str:
    """The folder (or top-level module) ``module`` lives in."""
    return module.split(".")[0] if module else "memdir"


def layer_of(module: str) -> str:
    area = area_of(module)
    if area in TOP_LEVEL:
        return TOP_LEVEL[area]
    if area in ADAPTERS:
        return "adapters"
    if area in ROOMS and (SRC / area).is_dir():
        return ROOMS[area]
    raise AssertionError(f"memdir.{module} has no layer: put it in a layer folder")


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        if parts:
            out.append((".".join(parts), path))
    return out


def imported(module: str, path: Path, *, with_names: bool = False) -> set[str]:
    """What ``module`` imports; ``with_names`` adds ``pkg.x`` for each ``from pkg import x``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".")[:-1] if path.name != "__init__.py" else module.split(".")
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
                source = "memdir." + name if name else "memdir"
            elif node.module:
                source = node.module
            else:
                continue
            found.add(source)
            if with_names:
                found |= {f"{source}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize(("module", "path"), modules(), ids=lambda v: str(v))
def test_imports_point_down_the_layers(module: str, path: Path) -> None:
    mine = layer_of(module)
    for name in imported(module, path):
        if name == "memdir" or name.startswith("memdir."):
            target = name.removeprefix("memdir").removeprefix(".")
            theirs = layer_of(target)
            assert ORDER.index(theirs) <= ORDER.index(mine), (
                f"memdir.{module} ({mine}) imports memdir.{target} ({theirs}) above it"
            )
            if mine == "adapters" and theirs == "adapters":
                allowed = {area_of(module), *ADAPTER_IMPORTS.get(area_of(module), ())}
                assert area_of(target) in allowed, (
                    f"adapters import each other: memdir.{module} -> memdir.{target}"
                )
        top = name.split(".")[0]
        if top in OWNED_IMPORTS:
            assert area_of(module) in OWNED_IMPORTS[top], (
                f"memdir.{module} imports {top}, which only {sorted(OWNED_IMPORTS[top])} may"
            )


def test_only_the_adapters_import_the_facade() -> None:
    for module, path in modules():
        if layer_of(module) in ("facade", "adapters"):
            continue
        names = imported(module, path)
        assert not names & {"memdir.api", "memdir"}, f"memdir.{module} imports the facade"


def test_every_layer_folder_is_a_known_layer() -> None:
    folders = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(ROOMS) | ADAPTERS


def test_every_room_is_small_enough_to_hold_in_mind() -> None:
    for folder in [SRC, *(p for p in SRC.rglob("*") if (p / "__init__.py").exists())]:
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        limit = MAX_TOP_LEVEL if folder == SRC else MAX_ROOM
        assert count <= limit, f"{folder.relative_to(SRC.parent)} holds {count} modules"


def test_no_two_modules_import_each_other_even_through_others() -> None:
    graph = {module: _memdir_imports(module, path) for module, path in modules()}
    for start in graph:
        seen: set[str] = set()
        stack = list(graph[start])
        while stack:
            current = stack.pop()
            assert current != start, f"memdir.{start} imports itself through others"
            if current not in seen and current in graph:
                seen.add(current)
                stack.extend(graph[current])


def _memdir_imports(module: str, path: Path) -> set[str]:
    """The memdir modules ``module`` imports (``from pkg import mod`` names the module)."""
    names = set()
    for name in imported(module, path, with_names=True):
        if name.startswith("memdir."):
            target = name.removeprefix("memdir.")
            if (SRC / target.replace(".", "/")).with_suffix(".py").exists() or (
                SRC / target.replace(".", "/") / "__init__.py"
            ).exists():
                names.add(target)
    return names


def test_importing_the_core_does_not_import_click_or_sdks() -> None:
    code = (
        "import sys, memdir, memdir.api, memdir.recall.prompt, memdir.storage.store;"
        "print(sorted(m for m in ('click','mcp','anthropic','openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_yaml_parser_loads_only_for_a_frontmatter_that_is_not_plain_lines() -> None:
    code = (
        "import sys, memdir.search.catalog, memdir.storage.store, memdir.storage.codec as c;"
        "before = 'yaml' in sys.modules;"
        "c.parse_frontmatter('name: a');plain = 'yaml' in sys.modules;"
        "c.parse_frontmatter('tags: [a, b]');"
        "print(before, plain, 'yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True"]


def test_every_module_opens_with_a_docstring() -> None:
    for module, path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"memdir.{module} has no module docstring"


def test_every_module_imports() -> None:
    for info in pkgutil.walk_packages([str(SRC)], prefix="memdir."):
        if info.name == "memdir.__main__":  # runs the CLI when imported
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:  # an optional extra that is not installed
            optional = {"mcp", "anthropic", "openai", "sentence_transformers", "torch"}
            optional |= {"starlette", "uvicorn", "jinja2", "markupsafe"}  # the ui extra
            assert exc.name in optional, f"{info.name}: {exc}"


def all_commands() -> list[list[str]]:
    paths: list[list[str]] = []
    ctx = click.Context(main)

    def walk(group: object, prefix: list[str]) -> None:
        if not isinstance(group, click.Group):
            return
        for name in group.list_commands(ctx):
            paths.append([*prefix, name])
            walk(group.get_command(ctx, name), [*prefix, name])

    walk(main, [])
    return paths


def test_the_lazy_command_table_names_every_command_the_modules_define() -> None:
    ctx = click.Context(main)
    defined = set()
    for module in {module for module, _ in COMMANDS.values()}:
        for command in getattr(importlib.import_module(module), "COMMANDS", []):
            defined.add(command.name)
    defined |= {"demo", "team"}  # their modules define the one command, no COMMANDS list
    assert defined == set(COMMANDS) == set(main.list_commands(ctx))
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert command is not None and command.name == name


# What a start of the library or the CLI must not load: the model layer, the MCP SDK,
# numpy and the catalog are loaded by the commands that use them.
HEAVY = ("memdir.llm", "mcp", "numpy", "memdir.search.catalog")


@pytest.mark.parametrize(
    "statement",
    [
        "import memdir",
        "import memdir.cli",
        "from memdir import Memdir",
        "import memdir.cli._common",
    ],
)
def test_starting_memdir_does_not_load_the_heavy_layers(statement: str) -> None:
    code = (
        f"import sys; {statement}; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {{'mcp', 'numpy'}} "
        f"or m.startswith({HEAVY!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("command", all_commands(), ids=" ".join)
def test_every_command_has_help(command: list[str]) -> None:
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    assert len(result.output.splitlines()) > 3


def test_every_module_lists_its_public_names() -> None:
    """Each module says what it exports; everything else is private to the package."""
    for module, path in modules():
        if path.name in ("__init__.py", "__main__.py", "hook_launcher.py"):  # scripts
            continue
        loaded = importlib.import_module(f"memdir.{module}") if _importable(module) else None
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = [
            node
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ]
        assert declared, f"memdir.{module} has no __all__"
        if loaded is not None:
            missing = [name for name in loaded.__all__ if not hasattr(loaded, name)]
            assert not missing, f"memdir.{module}.__all__ names missing objects: {missing}"


def _importable(module: str) -> bool:
    try:
        importlib.import_module(f"memdir.{module}")
    except ImportError:  # an optional extra that is not installed
        return False
    return True
