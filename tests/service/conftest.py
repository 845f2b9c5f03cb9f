"""A per-test time guard for the service tests, which wait on real files and watchers."""

from tests.time_guard import time_guard_fixture

time_guard = time_guard_fixture(fast=30.0)
