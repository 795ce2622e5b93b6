"""memdir: layered, file-based, typed memory for LLM agents."""
