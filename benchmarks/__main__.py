"""Entry point: ``python -m benchmarks``."""

from benchmarks.runner import main

raise SystemExit(main())
