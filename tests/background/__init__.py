"""Shared helpers for the background-agent tests (session notes, extraction, host)."""
