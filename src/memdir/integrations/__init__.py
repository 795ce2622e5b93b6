"""Adapters for agents that are not memdir's own: Claude's memory tool, coding-agent hooks.

:mod:`~memdir.integrations.memory_tool` backs the Anthropic memory tool with a
memdir scope; :mod:`~memdir.integrations.hooks` runs at a coding agent's
session start, stop and pre-compact; :mod:`~memdir.integrations.hook_entry`
answers the per-prompt and per-tool-call hooks on a slim import path, with
:mod:`~memdir.integrations.enforce` deciding what the feedback memories'
rules say about a call; :mod:`~memdir.integrations.claude_settings` installs
the hooks into a Claude Code settings file and
:mod:`~memdir.integrations.mcp_hosts` the MCP server into a host's config,
both with commands from :mod:`~memdir.integrations.launch` that run this
installation whatever the host's PATH; :mod:`~memdir.integrations.install_check`
runs those commands for ``memdir doctor``;
:mod:`~memdir.integrations.agents_md` writes memdir's section of ``AGENTS.md``
and Cursor's rule file for agents that read files instead of running hooks.
"""
