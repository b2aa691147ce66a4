"""The Go2's motors as the robot side names them (stdlib only): the bundle checks and the observation vocabulary
both read them."""

SDK2_JOINT_ORDER = tuple(f"{leg}_{part}_joint" for leg in ("FR", "FL", "RR", "RL") for part in ("hip", "thigh", "calf"))
"""Unitree SDK2 motor order (``LowCmd.motor_cmd[i]`` / ``LowState.motor_state[i]``): 0-2 FR, 3-5 FL, 6-8 RR,
9-11 RL, each hip, thigh, calf. The deploy side names the joints itself: it runs without the simulator's
description (numpy, onnxruntime and PyYAML only); a test ties these names to the description's."""

NUM_JOINTS = len(SDK2_JOINT_ORDER)
"""Actuated joints of the Go2."""

NUM_FEET = 4
"""Feet of the Go2 (``LowState.foot_force`` has one reading each)."""
