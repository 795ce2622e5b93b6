"""Adapters for agents that are not memdir's own: Claude's memory tool, coding-agent hooks.

:mod:`~memdir.integrations.memory_tool` backs the Anthropic memory tool with a
memdir scope; :mod:`~memdir.integrations.hooks` runs at a coding agent's
session start, stop and pre-compact; :mod:`~memdir.integrations.claude_settings`
installs those hooks into a project's ``.claude/settings.json``.
"""
