"""How installed Claude Code hooks start memdir: ``python -SP <this file> hook <name>``.

A hook runs on every tool call and prompt, so interpreter start-up is paid
hundreds of times a session. Started with ``-S``, Python skips the site
module (the ``.pth`` files of every installed package, the user's site
folder): a third of a bare interpreter's start. This file then puts the
folder holding memdir on the path, after the standard library, and runs
``memdir``; the first import that needs more than memdir and the standard
library (RE2 for a rule that may fire, YAML for the prompt) loads the site
module (:class:`memdir.hooks.site_on_demand.SiteOnDemand`). ``-P``
keeps this file's own folder (memdir's package folder, whose ``mcp``
subpackage would hide the MCP SDK) off the path.
"""

import gc
import os
import sys

# A hook's process lives for milliseconds and makes no garbage worth a collection; the
# collector's passes over every object imports create cost it about a tenth of its work.
_SHORT_LIVED = ("pre-tool-use", "user-prompt-submit", "session-start")

if __name__ == "__main__":
    if sys.argv[1:2] == ["hook"] and sys.argv[2:3] and sys.argv[2] in _SHORT_LIVED:
        gc.disable()
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from memdir.__main__ import main

    main()
