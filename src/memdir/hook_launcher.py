"""How installed Claude Code hooks start memdir: ``python -SP <this file> hook <name>``.

A hook runs on every tool call and prompt, so interpreter start-up is paid
hundreds of times a session. Started with ``-S``, Python skips the site
module (the ``.pth`` files of every installed package, the user's site
folder): a third of a bare interpreter's start. This file then puts the
folder holding memdir on the path, after the standard library, and runs
``memdir``; the first import that needs more than memdir and the standard
library (RE2 for a rule that may fire, YAML for the prompt) loads the site
module (:class:`memdir.integrations.hook_entry._SiteOnDemand`). ``-P``
keeps this file's own folder (memdir's package folder, whose ``mcp``
subpackage would hide the MCP SDK) off the path.
"""

import os
import sys

if __name__ == "__main__":
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from memdir.__main__ import main

    main()
