"""Deploy bundle: ``policy.onnx`` and ``deploy.yaml`` for running a trained Go2 policy outside Isaac Lab.

- :mod:`.bundle` reads and checks a bundle (numpy, onnxruntime, PyYAML; no Isaac Lab);
- :mod:`.controller` is the deploy-side reference controller (same imports);
- :mod:`.manifest` writes the manifest from a live Isaac Lab environment (needs Isaac Lab);
- :mod:`.sim2sim` runs a bundle in plain MuJoCo on this package's Go2 description.
"""
