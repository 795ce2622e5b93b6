"""Session memory: one notes file per session, kept current in the background.

``notes`` holds the thresholds, the extractor and the compaction helper;
``template`` the notes template and the extractor's prompt.
"""
