"""Transcripts: what an agent's session said and did, read from the agent's own log.

``reader`` reads a session's JSONL (Claude Code's, or plain role/content lines)
into ``turns`` (a :class:`~memdir.transcripts.turns.Turn` per message, its tool
calls, and the counts session memory's thresholds read), tolerant of a line cut
short by a writer that is still running. Extraction, session notes, per-prompt
selection, the search catalog and ``memdir why`` read sessions through it;
nothing here writes.
"""
