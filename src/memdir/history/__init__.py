"""History and review: every change a project's memory went through, and the way back.

``versions`` keeps each change's bytes (``table`` is its SQLite schema and
rows, ``reads`` the timeline of one memory); ``provenance`` says who made a
change (the route, the session); ``review`` decides which changes wait for a
person and ``pending`` approves or rejects them; ``undo`` restores, undoes,
redacts and answers "why", an undo run by ``reverse`` (planned whole, recorded
once complete) and a redaction by ``redaction`` (every copy memdir keeps);
``intents`` keeps an undo or an approval under way, so a rerun finishes one a
kill cut short; ``used_log`` keeps, per session, what memory it was
shown, and ``used`` joins that with the session's transcript (what it read and
wrote) and the rule firings. ``project`` ties a project's two stores to the
history they record into: the value every verb above takes. The stores below
know only the :class:`~memdir.storage.store_apply.ChangeLog` they write to.
"""
