"""The robot side of a deploy bundle (``policy.onnx`` + ``deploy.yaml``): :mod:`.bundle` reads and checks it,
:mod:`.controller` runs it (the reference controller) on a :class:`.state.RobotState`, :mod:`.observations` names every
observation term once,
:mod:`.steering` turns operator input into commands. Imports nothing of the package but its base modules (numpy,
onnxruntime, PyYAML; no Isaac Lab, no MuJoCo): this is what goes on a robot (docs/design.md, "Layers").
"""
