"""Site packages on demand, for a hook process started without the site module.

The hook launcher (:mod:`memdir.hook_launcher`) starts Python with ``-S``, so a
hook that needs only the standard library and memdir never pays for the site
module's work; :class:`SiteOnDemand`, the last import finder of such a process
(:mod:`memdir.hooks.entry` puts it there), runs that work
(:func:`full_environment`) at the first import that needs a package installed
beside memdir. Standard library only, like the rest of a hook's start.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: this module starts every hook process
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = ["SiteOnDemand", "full_environment"]


def full_environment() -> None:
    """The interpreter's site packages, when the hook was started without them.

    The hook launcher (:mod:`memdir.hook_launcher`) starts Python with
    ``-S``: the site module's work (its ``.pth`` files, the user's site
    folder) is left to the calls that need a package beyond the standard
    library and memdir. :class:`SiteOnDemand` calls this at the first
    import that needs it.
    """
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


# Probed by the standard library on every platform, never an installed package:
# Jython's (``copy`` and ``pickle`` look for its ``org.python.core``).
_NEVER_INSTALLED = frozenset({"org"})


class SiteOnDemand:
    """The last import finder of a process started without the site module.

    It finds nothing itself: the first import no other finder answers (a
    package installed beside memdir: RE2, YAML, click) loads the site module,
    then is looked for again by every finder, those its ``.pth`` files added
    included. Whatever path a hook takes, it has its packages when it first
    needs one, and not before.

    A standard-library name never loads it: the standard library is never
    served from site-packages, and its modules probe for what this platform
    lacks (``pathlib`` imports ``ntpath``, which tries ``_winapi``; ``copy``
    and ``pickle`` try Jython's ``org.python.core``). Such a probe fails as
    it would with the site module loaded.
    """

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top in _NEVER_INSTALLED:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        full_environment()
        for finder in sys.meta_path:
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                return spec
        return None
