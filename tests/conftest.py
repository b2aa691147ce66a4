"""Test tiers: ``tests/unit`` needs no simulator; ``tests/sim`` builds real Isaac Lab environments on the CPU and
is marked ``sim`` (run the fast tier alone with ``-m "not sim"``)."""

from pathlib import Path

import pytest

SIM_DIR = Path(__file__).parent / "sim"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SIM_DIR in Path(item.fspath).parents:
            item.add_marker(pytest.mark.sim)


@pytest.fixture(scope="session")
def asset_cache(tmp_path_factory):
    """A private, empty asset cache for the whole session, so tests build the Go2 USD themselves."""
    import os

    from go2_locomotion.assets import go2_usd

    path = tmp_path_factory.mktemp("asset_cache")
    previous = os.environ.get(go2_usd.CACHE_ENV_VAR)
    os.environ[go2_usd.CACHE_ENV_VAR] = str(path)
    yield path
    if previous is None:
        os.environ.pop(go2_usd.CACHE_ENV_VAR, None)
    else:
        os.environ[go2_usd.CACHE_ENV_VAR] = previous
