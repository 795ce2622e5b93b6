"""Team memory: the memory shared with everyone on a project.

``secrets`` scans text bound for the team directory and refuses credentials
(rules in ``secret_rules``); git sync lives beside it.
"""
