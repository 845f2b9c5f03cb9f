"""Benchmarks of session-memory: ``python -m benchmarks [--quick] [--out DIR]``.

Not part of the installed package and not run by the test suite (apart from a smoke test of
the harness on tiny sizes). See ``benchmarks/runner.py`` for what is measured and
``docs/performance.md`` for the results.
"""
