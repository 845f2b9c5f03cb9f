"""Entry point: ``python -m benchmarks.recall``."""

from benchmarks.recall.cli import main

raise SystemExit(main())
