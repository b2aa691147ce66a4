"""The height-scan benchmark's setups and its stepping comparison, without running a simulator."""

from go2_locomotion.benchmark import height_scan
from go2_locomotion.benchmark.compare import Measurement
from go2_locomotion.tasks.height_scanner import HeightScannerCfg


def test_the_cpu_recipe_once_per_height_source_the_default_first():
    setups = height_scan.height_scan_setups()
    default = HeightScannerCfg().height_source
    assert [s.name for s in setups] == [default, ({"height_grid", "ray_cast"} - {default}).pop()]
    assert {(s.task, s.num_envs) for s in setups} == {("Go2-Rough", 512)}
    assert setups[1].presets == ("presets=cpu", f"env.scene.height_scanner.height_source={setups[1].name}")


def test_stepping_is_measured_in_rotating_order_and_the_medians_kept(tmp_path, monkeypatch):
    first, second = (s.name for s in height_scan.height_scan_setups(64))
    order, fps = [], {first: iter([900.0, 1100.0, 1000.0]), second: iter([800.0, 600.0, 700.0])}

    def measure(kind, task, num_envs, args, out_dir, log, timeout_s):
        source = args[-1].rpartition("=")[2]
        order.append(source)
        return Measurement(task, kind, num_envs, {"env_steps_per_s": next(fps[source])}, "report.json")

    monkeypatch.setattr(height_scan, "measure", measure)
    result = height_scan.compare_runtime(height_scan.height_scan_setups(64), 50, "cpu", tmp_path, 3, 60.0)
    assert order == [first, second, second, first, first, second]
    assert result["medians"] == {first: {"env_steps_per_s": 1000.0}, second: {"env_steps_per_s": 700.0}}
    assert result["errors"] == {} and result["stalled"] == []
