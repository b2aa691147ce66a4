"""RSL-RL agent configurations of the Go2 tasks."""
