"""memdir's Claude Code plugin as Claude Code records it: enabled where, run from where.

Claude Code 2.1 records a plugin in the settings file of a scope, under
``enabledPlugins``: ``"<plugin>@<marketplace>": true``, and ``false`` turns off one an
outer scope enabled (the most specific file naming it wins: local, project, user).
``claude plugin install`` copies the plugin into ``plugins/cache/`` and records the copy
in ``plugins/installed_plugins.json``; a marketplace added from a folder
(``plugins/known_marketplaces.json``, source ``directory``: a clone of this repository)
has its plugins read in place from that folder. The plugin's options (its
``userConfig``) are kept under ``pluginConfigs`` in the settings, and its data folder is
``plugins/data/<id>``, every character of the id but letters, digits, ``-`` and ``_``
made ``-``.

:func:`enabled_plugin` reads, from the settings files it is given (which file is
which scope is :mod:`memdir.hosts.claude_code`'s to say), whether memdir's plugin is on
for a project and where it runs from; ``memdir doctor`` checks it there.
:func:`refuse_beside_plugin` is what memdir's Claude Code installers call first, so
the plugin and the installed hooks or server are never both set up (the plugin's
launcher also steps aside when it finds memdir's installed hooks,
:mod:`memdir.hosts.plugin_launcher`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError

__all__ = [
    "LAUNCHER",
    "PLUGIN",
    "PluginInstall",
    "enabled_plugin",
    "refuse_beside_plugin",
]

PLUGIN = "memdir"  # the plugin's name in .claude-plugin/plugin.json
LAUNCHER = Path("bin") / "memdir-plugin"  # what its hooks and server run, under its root
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, kw_only=True)
class PluginInstall:
    """memdir's plugin, enabled for a project.

    ``id``: ``memdir@<marketplace>``; ``scope`` and ``settings``: the file that enables
    it; ``root``: the folder Claude Code runs it from (None when it has no copy here:
    enabled by a project's settings, never installed); ``data``: its
    ``CLAUDE_PLUGIN_DATA``; ``options``: its option values (``python``, ``profile``).
    """

    id: str
    scope: str
    settings: Path
    root: Path | None
    data: Path
    options: tuple[tuple[str, str], ...] = ()

    @property
    def uninstall(self) -> str:
        """The command that removes it."""
        return f"claude plugin uninstall {self.id} --scope {self.scope}"

    def hook_env(self, project: Path) -> dict[str, str]:
        """What Claude Code adds to the environment of the plugin's hooks."""
        env = {"CLAUDE_PLUGIN_DATA": str(self.data), "CLAUDE_PROJECT_DIR": str(project)}
        if self.root is not None:
            env["CLAUDE_PLUGIN_ROOT"] = str(self.root)
        for key, value in self.options:
            env[f"CLAUDE_PLUGIN_OPTION_{key.upper()}"] = value
        return env


def _read(path: Path) -> dict[str, Any]:
    """A JSON object of Claude Code's; ``{}`` when missing or unreadable (doctor reports
    a settings file it cannot read on its own)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _ours(key: object) -> bool:
    return isinstance(key, str) and key.split("@", 1)[0] == PLUGIN and "@" in key


def enabled_plugin(files: Sequence[tuple[str, Path]], config_dir: Path) -> PluginInstall | None:
    """memdir's plugin when one of the settings ``files`` enables it.

    ``files``: (scope, path) of each settings file Claude Code reads for the project,
    the most specific first; ``config_dir``: Claude Code's folder (``~/.claude``).
    """
    for scope, path in files:
        enabled = _read(path).get("enabledPlugins")
        named = {k: v for k, v in enabled.items() if _ours(k)} if isinstance(enabled, dict) else {}
        if not named:
            continue
        on = [k for k, v in named.items() if v is not False]
        if not on:
            return None  # turned off here, whatever an outer scope says
        plugins = config_dir / "plugins"
        return PluginInstall(
            id=on[0],
            scope=scope,
            settings=path,
            root=_root(on[0], plugins),
            data=plugins / "data" / _UNSAFE.sub("-", on[0]),
            options=_options(on[0], files),
        )
    return None


def _root(plugin_id: str, plugins: Path) -> Path | None:
    """Where Claude Code runs the plugin from: its marketplace's folder for a folder
    marketplace, else the copy ``claude plugin install`` made."""
    marketplace = plugin_id.split("@", 1)[1]
    known = _read(plugins / "known_marketplaces.json").get(marketplace)
    known = known if isinstance(known, dict) else {}
    source = known.get("source")
    if isinstance(source, dict) and source.get("source") == "directory":
        folder = known.get("installLocation") or source.get("path")
        if isinstance(folder, str):
            return _entry_folder(Path(folder))
    installed = _read(plugins / "installed_plugins.json").get("plugins")
    entries = installed.get(plugin_id) if isinstance(installed, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        path = entry.get("installPath") if isinstance(entry, dict) else None
        if isinstance(path, str) and Path(path).is_dir():
            return Path(path)
    return None


def _entry_folder(marketplace: Path) -> Path:
    """The plugin's folder in a folder marketplace (``"source": "./"``: the folder itself)."""
    catalog = _read(marketplace / ".claude-plugin" / "marketplace.json").get("plugins")
    for entry in catalog if isinstance(catalog, list) else []:
        if isinstance(entry, dict) and entry.get("name") == PLUGIN:
            source = entry.get("source")
            if isinstance(source, str) and source.startswith("./"):
                return (marketplace / source).resolve()
    return marketplace


def _options(plugin_id: str, files: Sequence[tuple[str, Path]]) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for _, path in reversed(files):  # the user's first: a more specific file wins
        configs = _read(path).get("pluginConfigs")
        config = configs.get(plugin_id) if isinstance(configs, dict) else None
        options = config.get("options") if isinstance(config, dict) else None
        if isinstance(options, dict):
            found.update({k: v for k, v in options.items() if isinstance(v, str) and v})
    return tuple(sorted(found.items()))


def refuse_beside_plugin(plugin: PluginInstall | None, what: str) -> None:
    """Raise :class:`ConfigError` when memdir's plugin is enabled (``plugin`` is not None).

    ``what``: what the refused install would have added, and why that would be twice.
    """
    if plugin is None:
        return
    raise ConfigError(
        f"memdir's Claude Code plugin ({plugin.id}) is enabled in {plugin.settings}: "
        f"{what}, so memdir installs nothing beside it",
        path=plugin.settings,
        hint=f"keep the plugin (nothing to install), or remove it first: {plugin.uninstall}",
    )
