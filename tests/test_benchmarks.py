"""The benchmark harness runs end to end on tiny sizes (a smoke test; nothing is timed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import report, runner
from benchmarks.baseline_copy_on_update import CopyOnUpdateDeriver
from benchmarks.measure import events

TINY = runner.Config(
    name="tiny",
    sizes=(100, 300),
    curve=(30, 100, 300),
    flat_short=50,
    flat_long=300,
    flat_repeats=1,
    step_limit_s=0.3,
    baseline_limit_s=0.2,
    list_events=300,
    rss_sizes=(200,),
    externals=False,
    external_timeout_s=10.0,
)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[runner.Results, Path]:
    out = tmp_path_factory.mktemp("bench")
    return runner.run(TINY, out, command="pytest", quiet=True), out


class TestHarness:
    def test_writes_the_report_and_figures(self, tiny_run: tuple[runner.Results, Path]) -> None:
        """A run writes latest.md with every section, and latest.json."""
        results, out = tiny_run
        text = (out / "latest.md").read_text(encoding="utf-8")
        assert text == results.text
        for heading in ("## Targets", "## 1.", "## 2.", "## 3.", "## 4.", "## 5.", "## 7."):
            assert heading in text
        assert "TINY RUN" in text
        assert (out / "latest.json").stat().st_size > 0

    def test_recall_is_part_of_the_run(self, tiny_run: tuple[runner.Results, Path]) -> None:
        """A run scores the recall corpus, writes recall.md beside the report and ends on it."""
        results, out = tiny_run
        assert (out / "recall.md").read_text(encoding="utf-8").startswith("# Recall")
        assert results.recall[0].startswith("recall at budget 1200 (corpus): ")
        assert results.recall[-1].startswith("compaction points (2): ")

    def test_every_target_is_evaluated(self, tiny_run: tuple[runner.Results, Path]) -> None:
        """All six targets of issues 2 and 5 get a row (one of them read two ways)."""
        results, _ = tiny_run
        rows = report.targets(results)
        assert len(rows) == 7
        assert all(row.measured for row in rows)

    def test_throughput_runs_three_rounds(self, tiny_run: tuple[runner.Results, Path]) -> None:
        """Each pass runs in three rounds; the reported time is the median round."""
        results, _ = tiny_run
        tp = results.throughput
        assert tp is not None
        assert {key: len(times) for key, times in tp.rounds.items()} == {
            "raw": 3,
            "parse": 3,
            "rebuild": 3,
        }
        assert tp.rebuild_s == sorted(tp.rounds["rebuild"])[1]
        assert "Full rebuild in each round: " in results.text

    def test_restart_equals_full_rebuild(self, tiny_run: tuple[runner.Results, Path]) -> None:
        """Restoring the snapshot and applying the tail gives the full rebuild's memory."""
        results, _ = tiny_run
        assert results.restart is not None and results.restart.equal

    def test_curve_covers_every_size(self, tiny_run: tuple[runner.Results, Path]) -> None:
        """Each N of the curve has a measured or extrapolated figure for each method."""
        results, _ = tiny_run
        assert results.steps is not None and results.baseline is not None
        for n in TINY.curve:
            assert n in results.steps.measured or n in results.steps.extrapolated
            assert n in results.baseline.measured or n in results.baseline.extrapolated

    def test_peak_rss_is_reported(self, tiny_run: tuple[runner.Results, Path]) -> None:
        """The child process reports the events it derived and a positive peak."""
        results, _ = tiny_run
        assert [r.events for r in results.rss] == [200]
        assert results.rss[0].peak_kib > 0


class TestBaseline:
    def test_memory_grows_with_the_transcript(self) -> None:
        """The copy-on-update baseline keeps everything, so its memory grows with N."""
        deriver = CopyOnUpdateDeriver()
        memory = None
        sizes = []
        for i, event in enumerate(events(600, 1), 1):
            memory = deriver.update(memory, event)
            if i % 200 == 0:
                sizes.append(len(memory.completed_work) + len(memory.tool_states))
        assert memory is not None and memory.event_count == 600
        assert sizes == sorted(sizes) and sizes[0] < sizes[-1]


class TestFormatting:
    @pytest.mark.parametrize(
        ("seconds", "text"),
        [(2e-6, "2.00 µs"), (0.0123, "12.3 ms"), (3.5, "3.50 s"), (600, "10.0 min")],
    )
    def test_fmt_time(self, seconds: float, text: str) -> None:
        """Durations are shown in the unit that reads best."""
        assert report.fmt_time(seconds) == text
