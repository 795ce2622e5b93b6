"""The desktop MCP hosts: Claude Desktop and Cursor, where their MCP servers are kept.

Claude Desktop reads ``claude_desktop_config.json`` in a per-user folder that
depends on the platform, one entry per project (``memdir-<folder>`` with
``--project``: the app has no project of its own). Cursor reads the project's
``.cursor/mcp.json``, shared with the team, and may start a server in another
folder, so its entry passes ``--project ${workspaceFolder}``. Both keep their
servers under ``mcpServers`` (:mod:`memdir.hosts.mcp_servers` writes them).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CURSOR_MCP_FILE", "CURSOR_PROJECT_ARG", "claude_desktop_config_path"]

CURSOR_MCP_FILE = Path(".cursor") / "mcp.json"
CURSOR_PROJECT_ARG = "${workspaceFolder}"  # Cursor expands it to the open folder


def claude_desktop_config_path(
    env: Mapping[str, str] | None = None, platform: str | None = None
) -> Path:
    """Claude Desktop's config file on this platform (macOS, Windows, else the XDG folder)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        folder = home / "Library" / "Application Support"
    elif platform.startswith("win"):
        folder = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        folder = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return folder / "Claude" / "claude_desktop_config.json"
