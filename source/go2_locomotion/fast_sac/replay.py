"""FastSAC's replay: a ring buffer of transitions on the learner's device and the n-step window that writes into it.

With ``n_step`` > 1 a stored transition carries ``r_t + g r_t+1 + ... + g^(m-1) r_t+m-1``, the observation after its
last step and the discount ``g^m`` its bootstrap takes, ``m`` = n or fewer where the episode ended inside the window;
as in FastTD3, no off-policy correction.
"""

from __future__ import annotations

import torch
from tensordict import TensorDict


class ReplayBuffer:
    """A ring buffer of transitions, ``capacity`` in total over all environments, on the learner's device."""

    def __init__(self, capacity: int, obs_widths: dict[str, int], action_dim: int, device: str | torch.device):
        self.capacity = int(capacity)
        self.device = device
        self.obs = {g: torch.zeros(self.capacity, w, device=device) for g, w in obs_widths.items()}
        self.next_obs = {g: torch.zeros(self.capacity, w, device=device) for g, w in obs_widths.items()}
        self.actions = torch.zeros(self.capacity, action_dim, device=device)
        self.rewards = torch.zeros(self.capacity, device=device)
        self.terminated = torch.zeros(self.capacity, device=device)
        self.discount = torch.zeros(self.capacity, device=device)
        self.position = 0
        self.size = 0

    @property
    def nbytes(self) -> int:
        tensors = [*self.obs.values(), *self.next_obs.values(), self.actions, self.rewards, self.terminated]
        tensors.append(self.discount)
        return sum(t.nbytes for t in tensors)

    def add(self, obs: dict, actions, rewards, next_obs: dict, terminated, discount) -> None:
        """Store a batch of transitions (one per environment); the oldest are overwritten once full. ``discount``:
        the factor of the bootstrap (gamma to the number of steps the reward sums)."""
        n = actions.shape[0]
        done = 0
        while done < n:  # contiguous slices: one copy, or two where the ring wraps
            start = self.position
            count = min(n - done, self.capacity - start)
            rows, source = slice(start, start + count), slice(done, done + count)
            for group in self.obs:
                self.obs[group][rows] = obs[group][source]
                self.next_obs[group][rows] = next_obs[group][source]
            self.actions[rows] = actions[source]
            self.rewards[rows] = rewards[source]
            self.terminated[rows] = terminated[source]
            self.discount[rows] = discount[source]
            self.position = (start + count) % self.capacity
            done += count
        self.size = min(self.size + n, self.capacity)

    def sample(self, batch_size: int, generator: torch.Generator | None = None) -> dict:
        """``batch_size`` transitions drawn uniformly, with replacement, from those stored."""
        index = torch.randint(0, self.size, (batch_size,), device=self.device, generator=generator)
        obs = TensorDict({g: t[index] for g, t in self.obs.items()}, batch_size=[batch_size])
        next_obs = TensorDict({g: t[index] for g, t in self.next_obs.items()}, batch_size=[batch_size])
        return {
            "obs": obs,
            "actions": self.actions[index],
            "rewards": self.rewards[index],
            "next_obs": next_obs,
            "terminated": self.terminated[index],
            "discount": self.discount[index],
        }


class NStepWindow:
    """The last ``n`` steps of every environment. Once it holds ``n``, each new step releases the n-step transition
    of the oldest: its observation and action, ``R = sum_k g^k r_k`` over its steps up to the first episode end
    (termination or time-out) inside the window, the next observation and termination flag of that last step, and
    the discount ``g^m`` for ``m`` summed steps. All environments step together, so one window serves them all; an
    episode end only shortens the sums of the steps before it. ``n`` = 1 releases each step as it comes."""

    def __init__(self, n: int, gamma: float) -> None:
        self.n, self.gamma = int(n), float(gamma)
        self._steps: list[dict] = []

    def push(self, obs: dict, actions, rewards, next_obs: dict, terminated, ended) -> dict | None:
        """Add one step of every environment; the oldest step's n-step transition once ``n`` are held, else None.
        ``terminated``: the episode ended in a failure (no bootstrap); ``ended``: it ended at all (time-outs too)."""
        # copies: an environment may write its next step into the tensors it returned for this one
        step = {"obs": {g: t.clone() for g, t in obs.items()}, "actions": actions.clone(), "rewards": rewards.clone()}
        step |= {"next_obs": {g: t.clone() for g, t in next_obs.items()}}
        step |= {"terminated": terminated.to(torch.float32, copy=True), "ended": ended.to(torch.float32, copy=True)}
        self._steps.append(step)
        if len(self._steps) < self.n:
            return None
        steps, self._steps = self._steps, self._steps[1:]
        ended = torch.stack([s["ended"] for s in steps])  # [n, E]
        # step k is summed when no episode ended at the steps before it
        summed = torch.cumprod(torch.cat([torch.ones_like(ended[:1]), 1.0 - ended[:-1]]), dim=0)
        powers = self.gamma ** torch.arange(self.n, dtype=summed.dtype, device=summed.device)
        returns = (summed * powers.unsqueeze(-1) * torch.stack([s["rewards"] for s in steps])).sum(0)
        count = summed.sum(0)  # m in 1..n
        last = (count.long() - 1).unsqueeze(0)

        def at_last(values: torch.Tensor) -> torch.Tensor:
            index = last if values.dim() == 2 else last.unsqueeze(-1).expand(1, *values.shape[1:])
            return values.gather(0, index)[0]

        next_obs = {g: at_last(torch.stack([s["next_obs"][g] for s in steps])) for g in steps[0]["next_obs"]}
        return {
            "obs": steps[0]["obs"],
            "actions": steps[0]["actions"],
            "rewards": returns,
            "next_obs": next_obs,
            "terminated": at_last(torch.stack([s["terminated"] for s in steps])),
            "discount": self.gamma**count,
        }


def replay_memory_bytes(capacity: int, obs_widths: dict[str, int], action_dim: int) -> int:
    """Bytes of the replay buffer: float32 observation and next observation of every group, action, reward,
    termination flag and discount per transition (measured on :class:`ReplayBuffer` on PyTorch's ``meta`` device)."""
    return ReplayBuffer(capacity, obs_widths, action_dim, torch.device("meta")).nbytes
