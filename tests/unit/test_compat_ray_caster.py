"""The ray-caster workarounds: the OvPhysX reorder (environment rows from a binding's prim paths), and the upstream
mesh cache that :mod:`go2_locomotion.compat.ray_caster_meshes` empties for a new scanner."""

import pytest
from canary_fixtures import upstream_canary

from go2_locomotion.compat import ray_caster_meshes
from go2_locomotion.compat.ovphysx_ray_caster import env_rows


def _paths(numbers):
    return [f"/World/envs/env_{i}/Robot/base" for i in numbers]


def test_lexicographic_rows_are_put_in_environment_order():
    lexicographic = sorted(range(12), key=lambda i: f"env_{i}")  # 0, 1, 10, 11, 2, ..., 9: what ovphysx returns
    rows = env_rows(_paths(lexicographic))
    assert rows == [0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 2, 3]
    assert [lexicographic[row] for row in rows] == list(range(12))


def test_rows_already_in_order_need_nothing():
    assert env_rows(_paths(range(11))) is None


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        (["/World/ground"], "not inside a cloned environment"),
        (_paths([0, 2]), r"not one per environment 0..1: \[0, 2\]"),
        (_paths([0, 0, 1]), "not one per environment"),
    ],
)
def test_paths_that_are_not_one_per_environment_are_refused(paths, message):
    with pytest.raises(ValueError, match=message):
        env_rows(paths)


@upstream_canary(
    "isaaclab 3.0.0's ray caster reuses a class-level mesh keyed by (prim path, device) alone, whatever stage the "
    "new scanner is in",
    "compat/ray_caster_meshes.py",
)
def test_upstream_ray_caster_reads_the_stage_not_a_cached_mesh():
    """The canary of compat/ray_caster_meshes.py: a new scanner loads its mesh from its own stage, not from the
    process-wide cache (``tests/sim/test_height_scan.py`` builds the case on a simulator)."""
    reused = ray_caster_meshes.defect_present()
    if reused is None:
        pytest.fail("the mesh-cache probe cannot tell any more: update private_api.ray_caster_reuses_cached_mesh")
    assert not reused
