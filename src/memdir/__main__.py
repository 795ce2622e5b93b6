"""``python -m memdir``: the command line, for when the ``memdir`` script is not on PATH."""

from memdir.cli import main

main()
