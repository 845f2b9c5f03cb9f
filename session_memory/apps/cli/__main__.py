"""``python -m session_memory.apps.cli``: the console script, run by an interpreter."""

from __future__ import annotations

import sys

from session_memory.apps.cli.parser import main

if __name__ == "__main__":
    sys.exit(main())
