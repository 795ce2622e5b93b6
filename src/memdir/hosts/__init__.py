"""The hosts memdir plugs into, each findable by its name.

``claude_code`` installs memdir's hooks into a Claude Code settings file,
``codex`` into Codex CLI's ``hooks.json``, and
``install_check`` runs what Claude Code would run, for ``memdir doctor``;
``mcp_servers`` registers the MCP server with Claude Code, the desktop hosts
(``desktop``: Claude Desktop, Cursor), Codex CLI (``codex``) and Gemini CLI
(``gemini``), each of which says where it keeps its files; every installer
edits those files through ``config_files``; ``agents_md`` writes memdir's section of
``AGENTS.md`` and Cursor's rule file for agents that read files instead of
running hooks; ``memory_tool`` backs Anthropic's client-side memory tool with
a memdir scope. Every command they write comes from ``launch`` (this
installation, whatever the host's PATH) and is read back by ``written``.
"""
