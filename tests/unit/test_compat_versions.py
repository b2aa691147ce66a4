"""The compatibility layer checks upstream by version, names and behaviour, never by source text: a release other
than the pinned one warns once and carries on, a missing private name stops with its name, the probes tell a
present upstream bug from a fixed one, and every workaround names a canary that exists."""

from __future__ import annotations

import ast
import importlib
import logging
from pathlib import Path

import pytest

from go2_locomotion import compat
from go2_locomotion.compat import private_api
from go2_locomotion.versions import UPSTREAM_PINS

ROOT = Path(__file__).parents[2]
WORKAROUNDS = ("ovphysx_cylinders", "ovphysx_pinned_memory", "ovphysx_ray_caster", "ray_caster_meshes", "viser_viewer")


# -- versions ---------------------------------------------------------------------------------------------------


def test_another_release_warns_once_and_carries_on(monkeypatch, caplog):
    monkeypatch.setattr(compat, "package_version", lambda name: "9.9.9")
    with caplog.at_level(logging.WARNING, logger=compat.__name__):
        first = compat.written_for("isaaclab", "a unit test's workaround", "tests/x.py::test_fixed")
        second = compat.written_for("isaaclab", "a unit test's workaround", "tests/x.py::test_fixed")
    assert (first, second) == (False, False)
    assert [record.getMessage() for record in caplog.records] == [
        f"go2_locomotion: a unit test's workaround was written against isaaclab {UPSTREAM_PINS['isaaclab']}, "
        "installed is 9.9.9; tests/x.py::test_fixed XPASSes once it is no longer needed"
    ]


def test_the_pinned_release_passes_silently(monkeypatch, caplog):
    monkeypatch.setattr(compat, "package_version", UPSTREAM_PINS.get)
    with caplog.at_level(logging.WARNING, logger=compat.__name__):
        assert compat.written_for("rsl-rl-lib", "a unit test's runner hook")
    assert caplog.records == []


# -- private names ------------------------------------------------------------------------------------------------


def test_the_installed_releases_have_every_private_name():
    from isaaclab_ov.sensors.ray_caster import RayCaster

    private_api.check_rsl_rl()
    private_api.check_height_grid_scanner(RayCaster)
    private_api.check_ovphysx_ray_caster(RayCaster)
    private_api.check_visualizer_failure_report()


def _scanner(module: str, assigns_state: bool) -> type:
    """A stand-in ray caster with the hooks the height-grid scanner extends; its methods set the base classes'
    state on one line each, in a form no source-text match for ``self._device =`` would find."""

    class Scanner:
        def _initialize_impl(self):
            if assigns_state:
                self._device, self._num_envs = "cpu", 1
                self._data = None

        def _update_buffers_impl(self, env_mask):
            pass

        def _update_ray_infos(self, env_mask):
            pass

        def _initialize_rays_impl(self):
            self._ray_starts_w = self._ray_directions_w = None

        def get_world_poses(self):
            pass

    Scanner.__module__ = module
    return Scanner


def test_instance_attributes_are_read_from_what_the_code_assigns():
    private_api.check_height_grid_scanner(_scanner("isaaclab.sensors.stand_in", assigns_state=True))


def test_a_missing_private_name_is_named_with_the_installed_release():
    # the scanner's own module is not Isaac Lab's: nothing upstream sets the base classes' state
    with pytest.raises(private_api.PrivateApiError, match=r"^Scanner\._device is missing from isaaclab "):
        private_api.check_height_grid_scanner(_scanner("tests.stand_in", assigns_state=True))


# -- probes -------------------------------------------------------------------------------------------------------


def _caster(loading_for) -> type:
    """A stand-in ray caster class with a class-level mesh cache and ``loading_for(cache)`` as its mesh loading."""
    meshes = {}
    return type("Caster", (), {"meshes": meshes, "_initialize_warp_meshes": loading_for(meshes)})


def _reuses(meshes):
    def loading(sensor):
        for path in sensor.cfg.mesh_prim_paths:
            if not any(cached_path == path for cached_path, _device in meshes):
                raise RuntimeError(f"no prim at {path}")  # a stage lookup

    return loading


def _reads_the_stage(meshes):
    def loading(sensor):
        raise RuntimeError("no prim")  # every load looks at the stage

    return loading


def _reads_more(meshes):
    def loading(sensor):
        return sensor.stage_id  # state the probe's stand-in sensor lacks

    return loading


def test_the_mesh_cache_probe_tells_reuse_from_a_stage_read():
    reusing, per_stage, unknown = _caster(_reuses), _caster(_reads_the_stage), _caster(_reads_more)
    assert private_api.ray_caster_reuses_cached_mesh(reusing) is True
    assert private_api.ray_caster_reuses_cached_mesh(per_stage) is False
    assert private_api.ray_caster_reuses_cached_mesh(unknown) is None
    assert reusing.meshes == per_stage.meshes == unknown.meshes == {}  # the stand-in mesh is gone again


class _OldViewer:
    def _log_plane_instances(self, name, plane_info, xforms, scales, hidden=False):
        return self._to_numpy(xforms), self.server


class _FixedViewer(_OldViewer):
    def _to_numpy(self, array):
        return array


def test_the_viewer_probe_tells_a_missing_to_numpy_from_other_state():
    assert private_api.viser_plane_drawing_misses_to_numpy(_OldViewer)
    assert not private_api.viser_plane_drawing_misses_to_numpy(_FixedViewer)  # stops later, at its server


# -- canaries -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", WORKAROUNDS)
def test_each_workaround_names_a_canary_that_exists(name):
    path, test = importlib.import_module(f"go2_locomotion.compat.{name}").UPSTREAM_TEST.split("::")
    functions = {
        node.name for node in ast.walk(ast.parse((ROOT / path).read_text())) if isinstance(node, ast.FunctionDef)
    }
    assert test in functions
