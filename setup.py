"""Install the go2_locomotion extension: ``pip install -e .`` (in Isaac Lab: ``isaaclab.sh -p -m pip install -e .``)."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).parent
EXTENSION = tomllib.loads((ROOT / "extension.toml").read_text())

setup(
    name="go2_locomotion",
    version=EXTENSION["package"]["version"],
    description=EXTENSION["package"]["description"],
    long_description=(ROOT / "README.md").read_text(),
    long_description_content_type="text/markdown",
    license="BSD-3-Clause",
    python_requires=">=3.12",
    package_dir={"": "source"},
    packages=find_packages("source"),
    package_data={
        "go2_locomotion": [
            "assets/data/*.usda",
            "pretrained/*/*.pt",
            "pretrained/*/*.json",
            "pretrained/*/*.md",
            "pretrained/*/exported/*",
            "pretrained/*/params/*",
            "pretrained/*/evaluation/*/*",
        ]
    },
    install_requires=[
        # Isaac Lab itself is not listed: inside an Isaac Lab / Isaac Sim install it is already there, and
        # pip must not replace it. The project's own environment gets it from setup.sh.
        "onnx",  # the exported policy.onnx (export, deploy bundle)
        "onnxruntime",  # the numpy reference controller, sim-to-sim
        # playback in a browser (--viz viser) and --video (MP4 through imageio-ffmpeg's bundled ffmpeg), the
        # ranges of Isaac Lab 3.0's own `viser` and `video` extras
        "viser>=1.0.16",
        "moviepy>=1.0.3,<2",
        "tqdm",  # progress of long evaluations on stderr
        "scipy",  # the terrain evaluation's Wilson intervals (Isaac Lab requires it too; listed for the MuJoCo side)
    ],
    extras_require={
        # Only to rebuild the Go2 USD after changing its description (the package ships the asset of its own);
        # keep it out of Isaac Sim's Python, whose Kit brings its own USD.
        "usd-build": ["mujoco-usd-converter==0.6.1"],
        "test": ["pytest", "ruff", "playwright"],  # playwright drives Debian's chromium (no browser download)
        # Unitree SDK2 over DDS (sdk2): CycloneDDS's Python binding in the Go2's version line, built against
        # the system's CycloneDDS 0.10 C library (Debian: cyclonedds-dev; CYCLONEDDS_HOME, set by setup.sh). Not
        # 11.x: CycloneDDS 0.10 peers crash on its type information (docs/deploy_sdk2.md).
        "sdk2": ["cyclonedds==0.10.2"],
    },
    entry_points={
        "isaaclab.tasks": [
            "go2_locomotion = go2_locomotion.tasks",
            # Isaac Lab's own Go2 tasks with local assets: registered only inside scripts/benchmark.py's processes
            "go2_locomotion_upstream = go2_locomotion.benchmark.registration",
        ]
    },
    zip_safe=False,
)
