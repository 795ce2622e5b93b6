"""Transcripts: what an agent's session said and did, read from the agent's own log.

``transcript`` reads a session's JSONL (Claude Code's, or plain role/content
lines) into turns and tool calls, tolerant of a line cut short by a writer
that is still running. Extraction, session notes, per-prompt selection, the
search catalog and ``memdir why`` read sessions through it; nothing here
writes.
"""
