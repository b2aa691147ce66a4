"""Evaluating a policy on a fixed command grid: the same figures in Isaac Lab and in plain MuJoCo."""
