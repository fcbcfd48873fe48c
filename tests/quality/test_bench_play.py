"""bench_play's pure parts: which stage a long task is charged to, the per-stage figures and the main
thread's wall and CPU time read from a trace. The budgets themselves are printed by the benchmark, never
asserted here."""
from __future__ import annotations

from scripts.quality import bench_play as bp

STAGES = [[100.0, "tokens"], [200.0, "lookup"], [300.0, "attention"]]


def test_a_task_counts_for_the_stage_on_show_when_it_ended():
    assert bp.stage_at(50.0, STAGES) == "before"
    assert bp.stage_at(100.0, STAGES) == "tokens"
    assert bp.stage_at(299.9, STAGES) == "lookup"
    # the task that draws a stage starts before its stamp: it is the new stage's
    figures = bp.by_stage([float(t) for t in range(100, 400, 10)], [[180.0, 60.0], [210.0, 55.0]], STAGES)
    assert figures["lookup"]["long_tasks"] == 2 and figures["lookup"]["longest_task_ms"] == 60.0
    assert figures["tokens"]["long_tasks"] == 0 and figures["attention"]["long_tasks"] == 0


def test_long_tasks_name_what_their_frame_ran():
    loafs = [{"start": 205.0, "duration": 60.0, "style_layout": 12.0,
              "scripts": [{"what": "TimerHandler:setTimeout", "ms": 30.0, "forced": 8.0},
                          {"what": "FrameRequestCallback", "ms": 40.0, "forced": 0.0}]}]
    out = bp.long_tasks([[210.0, 55.0], [320.0, 70.0]], loafs, STAGES)
    assert out[0]["stage"] == "lookup" and [s["what"] for s in out[0]["scripts"]] == ["FrameRequestCallback", "TimerHandler:setTimeout"]
    assert out[1] == {"ms": 70.0, "stage": "attention", "style_layout_ms": None, "scripts": []}


def test_main_thread_time_per_stage_from_a_trace():
    def task(ts, dur, tdur, tid=1):
        return {"ph": "X", "name": "ThreadControllerImpl::RunTask", "pid": 7, "tid": tid, "ts": ts, "dur": dur, "tdur": tdur}
    events = [{"ph": "R", "name": "nt-stage:tokens", "pid": 7, "tid": 1, "ts": 1000},
              {"ph": "R", "name": "nt-stage:lookup", "pid": 7, "tid": 1, "ts": 100_000},
              task(2000, 10_000, 9000), task(90_000, 70_000, 5000),  # a long task that waited for a core
              task(200_000, 60_000, 55_000), task(200_000, 90_000, 90_000, tid=2)]  # another thread: not counted
    got = bp.main_thread({"traceEvents": events})
    assert got["stages"] == {"tokens": {"wall_ms": 10.0, "cpu_ms": 9.0, "task_cpu_max_ms": 9.0},
                             "lookup": {"wall_ms": 130.0, "cpu_ms": 60.0, "task_cpu_max_ms": 55.0}}
    assert got["long_tasks"] == [{"stage": "lookup", "ms": 70.0, "cpu_ms": 5.0}, {"stage": "lookup", "ms": 60.0, "cpu_ms": 55.0}]
    assert bp.main_thread({"traceEvents": [task(0, 1, 1)]}) == {"stages": {}, "long_tasks": []}
