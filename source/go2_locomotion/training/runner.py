"""The package's RSL-RL runners: :class:`Go2OnPolicyRunner` (RSL-RL's ``OnPolicyRunner``) and
:class:`Go2DistillationRunner` (the same on ``DistillationRunner``). They add named methods and replace no library
method at run time: iteration callbacks, a stop after the current iteration, atomic checkpoints, CPU ranks, a stall
watchdog, resume in the same folder.

Why: docs/design.md, *The runner: training/runner.py*.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import torch
from rsl_rl.runners import DistillationRunner, OnPolicyRunner
from rsl_rl.utils.logger import Logger
from torch.utils.tensorboard import SummaryWriter

from ..compat import private_api
from .checkpoints import remove_partial_writes, write_atomically
from .ppo import Go2PPO
from .watchdog import STALLED_EXIT_CODE, StallWatchdog

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)
"""Signals that stop training after the current iteration, with its checkpoint saved: Ctrl-C, a scheduler's
termination and SLURM's pre-timeout ``--signal=USR1@...``."""

IterationCallback = Callable[["Go2OnPolicyRunner", int, float, float], None]
"""``callback(runner, iteration, collection_time_s, learning_time_s)``."""

StallCallback = Callable[[float], None]
"""``callback(seconds_without_an_iteration)``, run by the watchdog's thread just before the process exits."""


class _StopAfterIteration(Exception):
    """Raised by the runner's own logger hook to leave RSL-RL's loop after an iteration; caught in :meth:`learn`."""


class _HookedLogger(Logger):
    """RSL-RL's logger, calling the runner back after each iteration and resuming TensorBoard at an iteration."""

    def __init__(self, *args, after_iteration: Callable[[int, float, float], None], **kwargs):
        super().__init__(*args, **kwargs)
        self.after_iteration = after_iteration
        self.purge_step: int | None = None

    def init_logging_writer(self) -> None:
        super().init_logging_writer()
        # by the writer's type, whichever form of the logger setting made it (W&B and Neptune writers subclass it)
        if self.purge_step is not None and type(self.writer) is SummaryWriter:
            # A new writer with purge_step makes TensorBoard drop steps >= purge_step of earlier event files.
            self.writer.close()
            self.writer = SummaryWriter(log_dir=self.log_dir, flush_secs=10, purge_step=self.purge_step)

    def log(self, *args, **kwargs) -> None:
        super().log(*args, **kwargs)
        self.after_iteration(kwargs["it"], kwargs["collect_time"], kwargs["learn_time"])


class Go2OnPolicyRunner(OnPolicyRunner):
    """RSL-RL's on-policy runner with iteration callbacks, a cooperative stop, atomic checkpoints and CPU ranks."""

    def __init__(self, env, train_cfg: dict, log_dir: str | None = None, device: str = "cpu") -> None:
        private_api.check_rsl_rl()
        super().__init__(env, train_cfg, log_dir=log_dir, device=device)
        self.logger = _HookedLogger(
            log_dir=log_dir,
            cfg=self.cfg,
            env_cfg=self.env.cfg,
            num_envs=self.env.num_envs,
            is_distributed=self.is_distributed,
            gpu_world_size=self.gpu_world_size,
            gpu_global_rank=self.gpu_global_rank,
            device=self.device,
            after_iteration=self._after_iteration,
        )
        self._callbacks: list[IterationCallback] = []
        self._stall_callbacks: list[StallCallback] = []
        self._checkpoint_states: list[tuple[Callable[[], dict], Callable[[dict | None], None]]] = []
        self._watchdog: StallWatchdog | None = None
        self._stop_signal: int | None = None
        self.last_saved: str | None = None

    # -- ranks -------------------------------------------------------------------------------------------------

    @property
    def rank(self) -> int:
        """Global rank (0 when not distributed)."""
        return self.gpu_global_rank

    @property
    def writes_files(self) -> bool:
        """Whether this process writes checkpoints and logs (rank 0 with a log folder)."""
        return self.logger.log_dir is not None and not self.logger.disable_logs

    def _configure_multi_gpu(self) -> None:
        """RSL-RL's set-up on GPUs; on CPUs a ``gloo`` process group and pinned threads instead of ``nccl``."""
        if str(self.device).startswith("cuda") or int(os.getenv("WORLD_SIZE", "1")) <= 1:
            super()._configure_multi_gpu()
            return
        self.gpu_world_size = int(os.environ["WORLD_SIZE"])
        self.gpu_local_rank = int(os.getenv("LOCAL_RANK", "0"))
        self.gpu_global_rank = int(os.getenv("RANK", "0"))
        self.is_distributed = True
        self.cfg["multi_gpu"] = {
            "global_rank": self.gpu_global_rank,
            "local_rank": self.gpu_local_rank,
            "world_size": self.gpu_world_size,
        }
        pin_threads(int(os.getenv("LOCAL_WORLD_SIZE", str(self.gpu_world_size))))
        if not torch.distributed.is_initialized():
            torch.distributed.init_process_group(
                backend="gloo", rank=self.gpu_global_rank, world_size=self.gpu_world_size
            )

    def close_process_group(self) -> None:
        """Leave the process group of a distributed run once training is over (every rank, after its last save). A
        ``gloo`` group left to the interpreter's exit can abort a rank that has already finished (seen once in CI:
        both ranks completed, then one got SIGABRT, so torchrun failed the job)."""
        if self.is_distributed and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()

    # -- hooks -------------------------------------------------------------------------------------------------

    def add_iteration_callback(self, callback: IterationCallback) -> None:
        """Call ``callback(runner, it, collect_time, learn_time)`` after every iteration."""
        self._callbacks.append(callback)

    def add_checkpoint_state(self, save: Callable[[], dict], restore: Callable[[dict | None], None]) -> None:
        """State beside the networks: ``save()`` goes into every checkpoint's ``infos``; on :meth:`resume`,
        ``restore(infos)`` gets them back (``None`` from a checkpoint without ``infos``)."""
        self._checkpoint_states.append((save, restore))

    def add_stall_callback(self, callback: StallCallback) -> None:
        """Call ``callback(seconds)`` when the stall watchdog ends the run (from its thread; the main thread is
        stuck, so the callback sees the state of the last finished iteration)."""
        self._stall_callbacks.append(callback)

    def request_stop(self, signum: int = signal.SIGINT) -> None:
        """Stop after the current iteration (all ranks at the same one) and save its checkpoint."""
        self._stop_signal = signum

    def recent_episodes(self) -> tuple[float, float] | None:
        """Mean return and mean length [steps] of the episodes RSL-RL's logger last collected (its window of the
        latest 100 finished ones, as in the console and TensorBoard), or ``None`` before any episode finished."""
        rewards, lengths = self.logger.rewbuffer, self.logger.lenbuffer
        if not rewards:
            return None
        return float(sum(rewards) / len(rewards)), float(sum(lengths) / len(lengths))

    def resume(self, path, checkpoint: dict, *, same_folder: bool) -> int:
        """Load ``checkpoint`` (read from ``path``) and continue at the iteration after the one it holds (RSL-RL
        alone would repeat that iteration, and its checkpoint name). In the same run folder TensorBoard continues
        there, dropping steps that an earlier attempt logged after its last checkpoint. Returns the next
        iteration."""
        infos = self.load(str(path), map_location=self.device)
        for _save, restore in self._checkpoint_states:
            restore(infos)
        self.current_learning_iteration = checkpoint["iter"] + 1
        if same_folder:
            self.continue_in_folder_at(self.current_learning_iteration)
        return self.current_learning_iteration

    def continue_in_folder_at(self, iteration: int) -> None:
        """Continue an earlier attempt's run folder at ``iteration``: TensorBoard drops the steps from ``iteration``
        on that earlier attempts logged (after their last checkpoint), and interrupted checkpoint writes go."""
        self.logger.purge_step = iteration
        if self.writes_files:
            remove_partial_writes(Path(self.logger.log_dir))

    def _tell_iteration(self, iteration: int) -> None:
        """Give :class:`~.ppo.Go2PPO` the iteration of its next update (its critic warm-up counts by it)."""
        if isinstance(self.alg, Go2PPO):
            self.alg.iteration = iteration

    def _after_iteration(self, it: int, collect_time: float, learn_time: float) -> None:
        self.current_learning_iteration = it
        self._tell_iteration(it + 1)
        if self._watchdog is not None:
            self._watchdog.beat()
        for callback in self._callbacks:
            callback(self, it, collect_time, learn_time)
        stop = self._stop_signal is not None
        if self.is_distributed:
            # every rank stops at the same iteration, or the next collective would hang
            flag = torch.tensor([float(stop)], device=self.device)
            torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MAX)
            stop = bool(flag.item())
        if stop:
            raise _StopAfterIteration

    def learn(self, num_learning_iterations: int, init_at_random_ep_len: bool = False) -> str:
        """RSL-RL's loop, stoppable by :data:`STOP_SIGNALS`. Returns ``"completed"`` or ``"interrupted"``.

        A first signal stops after the current iteration with its checkpoint saved; a second one stops at once.
        """
        previous = {}

        def on_signal(signum, _frame):
            self.request_stop(signum)
            signal.signal(signum, previous[signum])
            print(f"\n[go2] {signal.Signals(signum).name}: saving after this iteration (send it again to stop now)")

        for signum in STOP_SIGNALS:
            previous[signum] = signal.signal(signum, on_signal)
        timeout_s = float(self.cfg.get("stall_timeout_s") or 0)
        if timeout_s > 0:
            self._watchdog = StallWatchdog(timeout_s, self._on_stall)
            self._watchdog.start()
        self._tell_iteration(self.current_learning_iteration)
        try:
            super().learn(num_learning_iterations, init_at_random_ep_len)
            return "completed"
        except _StopAfterIteration:
            if self.writes_files:
                path = os.path.join(self.logger.log_dir, f"model_{self.current_learning_iteration}.pt")
                self.save(path)
                self.logger.stop_logging_writer()
                print(f"[go2] saved {path}")
            return "interrupted"
        finally:
            if self._watchdog is not None:
                self._watchdog.stop()
                self._watchdog = None
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            if self.logger.writer is not None and hasattr(self.logger.writer, "flush"):
                self.logger.writer.flush()

    def _on_stall(self, seconds: float) -> None:
        resume_from = self.last_saved or "the newest checkpoint of the run folder"
        print(
            f"[go2] no training iteration finished in {seconds:.0f} s (agent.stall_timeout_s = "
            f"{self.cfg['stall_timeout_s']}) after iteration {self.current_learning_iteration}: the simulation step "
            f"is stuck; exiting with code {STALLED_EXIT_CODE}. The same command with --resume auto continues from "
            f"{resume_from}",
            file=sys.stderr,
        )
        for callback in self._stall_callbacks:
            callback(seconds)
        if self.logger.writer is not None and hasattr(self.logger.writer, "flush"):
            self.logger.writer.flush()

    def save(self, path: str, infos: dict | None = None) -> None:
        """RSL-RL's checkpoint, written atomically: a reader sees the previous file or the complete new one."""
        saved = self.alg.save()
        saved["iter"] = self.current_learning_iteration
        for save, _restore in self._checkpoint_states:
            infos = {**(infos or {}), **save()}
        saved["infos"] = infos
        write_atomically(saved, path)
        self.last_saved = path
        self.logger.save_model(path, self.current_learning_iteration)


class Go2DistillationRunner(Go2OnPolicyRunner, DistillationRunner):
    """RSL-RL's distillation runner with :class:`Go2OnPolicyRunner`'s hooks. In the method order
    ``Go2OnPolicyRunner -> DistillationRunner -> OnPolicyRunner``, :meth:`learn` (signals, watchdog, stop with a
    checkpoint) wraps ``DistillationRunner.learn`` (which refuses to start without a loaded teacher), which runs
    ``OnPolicyRunner``'s loop; saving, resuming and the logger are the package's."""


def pin_threads(local_world_size: int) -> int:
    """Give this rank ``cores / local_world_size`` torch threads (at least one); returns the count."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threads = max(1, cores // max(1, local_world_size))
    torch.set_num_threads(threads)
    return threads
