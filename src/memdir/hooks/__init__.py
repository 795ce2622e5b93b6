"""The hook process machinery: what a coding agent runs at its session's events.

``entry`` answers the per-prompt and per-tool-call hooks on a slim import
path (``pre_tool_use`` decides what the feedback memories' rules say about a
call; ``session_start`` builds the memory section a session opens with), with
``memo`` remembering where a project's memory lives between calls, and
``dialects`` holding what differs between the agents that run them (Codex CLI's
tools and what its answers can carry).
``client`` asks the warm ``server`` over the socket ``wire`` describes, and
starts it when none runs; the server's ``folder_watch`` (on ``inotify``) says
when a rule may have changed. ``background`` starts the detached jobs of
stop, pre-compact and session end, and ``job_status`` reads their outcome
back. The hosts' installers (:mod:`memdir.hosts`) write the commands that
start all this.
"""
