"""Training the value network: a trainer the run loop drives in units of training steps.

``ValueNetTrainer(game, config)`` holds a ``ValueNet``, its Adam optimiser and two sets of
solved public belief states (``pbs_data``: training and validation, DeepStack's random states
mixed with ReBeL's states of play). ``iterate(n)`` runs ``n`` minibatch steps (the first call
draws and solves the data, with a progress bar, resuming from ``data_dir`` when one is given);
every ``eval_every`` steps it measures the validation error, in chips per pot: the mean
absolute error of the values over the hands the board leaves, both players
(``metrics()["value_val_error_pot"]``), and keeps the curve (``history``, ``plot_curve``).
``state_dict`` / ``load_state_dict`` hold everything needed to resume (weights, optimiser,
generator, data or where it lies), ``save`` / ``load`` through ``pokerzoo.checkpoint``.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pokerzoo.agents.resolver.pbs import LeafStates, StateBatch, game_record, solver_reaches
from pokerzoo.agents.resolver.pbs_data import generate_dataset
from pokerzoo.agents.resolver.value_net import (
    ValueNet,
    ValueNetSpec,
    card_masks,
    default_device,
    net_from_state,
    save_value_net,
)
from pokerzoo.checkpoint import checked_int, read_checkpoint, write_checkpoint
from pokerzoo.config import with_overrides
from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.games.base import Game

CHECKPOINT_NAME = "value-net-trainer"


@dataclass(frozen=True)
class ValueTrainingConfig:
    """How the value network is trained (defaults: the Leduc run of bench/value_net_leduc.py)."""

    states: int = 40_000
    """Training PBSs (rounded up to whole chunks)."""
    validation_states: int = 2_000
    """Held-out PBSs (drawn from another seed)."""
    solve_iterations: int = 300
    """DCFR iterations per PBS solve (targets within about 1e-4 of the pot)."""
    leaves: str = "round_end"
    """Where the states lie: ``"round_end"`` (the depth limit at a round's end) or ``"all"``."""
    policy_share: float = 0.5
    """Share of states from play (ReBeL; DCFR's strategies on the whole game), the rest random
    (DeepStack's recursive ranges)."""
    noise: float = 0.5
    """Log-normal noise on the ranges of states from play."""
    chunk: int = 1000
    """PBSs per data file."""
    width: int = 256
    """Units per hidden layer."""
    layers: int = 4
    """Hidden layers."""
    zero_sum: bool = True
    """DeepStack's zero-sum correction layer."""
    suit_symmetry: bool = True
    """Train on states relabelled by a random suit permutation each (the Leduc family's
    suits never decide a hand) and answer with the mean over all relabellings."""
    batch_size: int = 512
    """PBSs per training step."""
    learning_rate: float = 1e-3
    """Adam's step size at the start."""
    lr_halving: int = 4_000
    """Steps between halvings of the step size (0: constant)."""
    eval_every: int = 500
    """Steps between validation measurements."""
    data_dir: str = ""
    """Folder of the data chunks (``train/``, ``val/``), resumable; "" keeps the data in the
    trainer (and its checkpoint)."""
    workers: int = 1
    """Processes solving PBSs."""
    device: str = "auto"
    """``"auto"`` (CUDA when present), ``"cpu"`` or ``"cuda"``."""

    def __post_init__(self) -> None:
        for name in ("states", "validation_states", "solve_iterations", "chunk", "width",
                     "layers", "batch_size", "eval_every", "workers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an int >= 1, not {value!r}")
        if not isinstance(self.lr_halving, int) or self.lr_halving < 0:
            raise ConfigError(f"lr_halving must be an int >= 0, not {self.lr_halving!r}")
        if not 0 < self.learning_rate < 1:
            raise ConfigError(f"learning_rate must be in (0, 1), not {self.learning_rate!r}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ConfigError(f"device must be 'auto', 'cpu' or 'cuda', not {self.device!r}")


class ValueNetTrainer:
    """Trains a ``ValueNet`` on solved PBSs of ``game`` (see the module docstring).

    Args:
        game: a small game with rounds (the Leduc family).
        config: a ``ValueTrainingConfig``; ``overrides`` replace its fields.
        seed: seeds the data (training ``seed``, validation ``seed + 1``), the weights and
            the minibatches.
        progress: progress bars while the data is solved.
    """

    def __init__(self, game: Game, config: ValueTrainingConfig | None = None, seed: int = 0,
                 progress: bool = True, **overrides: Any) -> None:
        self.config = with_overrides(ValueTrainingConfig, config, overrides)
        self.game = game
        self.seed = int(seed)
        self.progress = progress
        cfg = self.config
        self.states = LeafStates(game, cfg.leaves, cfg.solve_iterations)
        spec = ValueNetSpec.for_tree(game, self.states.spec, self.states.tree,
                                     symmetric=cfg.suit_symmetry, width=cfg.width,
                                     layers=cfg.layers, zero_sum=cfg.zero_sum)
        self.device = default_device() if cfg.device == "auto" else torch.device(cfg.device)
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise ConfigError("device='cuda' but torch sees no CUDA device; use 'auto' or 'cpu'")
        self.generator = torch.Generator().manual_seed(self.seed)
        self.net = ValueNet(spec, generator=self.generator).to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate)
        self.train: StateBatch | None = None
        self.validation: StateBatch | None = None
        self._tensors: dict[str, tuple[torch.Tensor, ...]] = {}
        self._iteration = 0
        self.history: list[tuple[int, float, float]] = []
        """``(step, validation error per pot, training loss)`` at each measurement."""
        self._loss = float("nan")

    @property
    def iteration(self) -> int:
        return self._iteration

    # Data ------------------------------------------------------------------------------------

    def ensure_data(self) -> None:
        """Draw and solve the PBSs (or read them from ``data_dir``) if not done yet."""
        if self.train is not None:
            return
        cfg = self.config
        reaches = solver_reaches(self.states) if cfg.policy_share > 0 else []
        sets = []
        for name, count, seed in (("train", cfg.states, self.seed),
                                  ("val", cfg.validation_states, self.seed + 1)):
            if cfg.data_dir:
                sets.append(generate_dataset(
                    Path(cfg.data_dir) / name, self.game, count, chunk=min(cfg.chunk, count),
                    seed=seed, leaves=cfg.leaves, iterations=cfg.solve_iterations,
                    reaches=reaches, policy_share=cfg.policy_share, noise=cfg.noise,
                    workers=cfg.workers, progress=self.progress))
            else:
                sets.append(self._in_memory(count, seed, reaches))
        self._set_data(sets[0], sets[1])

    def _in_memory(self, count: int, seed: int, reaches: list[Any]) -> StateBatch:
        from tqdm.auto import tqdm

        from pokerzoo.agents.resolver.pbs_data import draw_chunk

        cfg = self.config
        size = min(cfg.chunk, count)
        batches = []
        for k in tqdm(range(-(-count // size)), desc="solving public belief states",
                      unit="chunk", disable=not self.progress):
            batches.append(draw_chunk(self.states, size, seed, k, reaches, cfg.policy_share,
                                      cfg.noise))
        return StateBatch.concatenate(batches)

    def _set_data(self, train: StateBatch, validation: StateBatch) -> None:
        self.train, self.validation = train, validation
        for name, batch in (("train", train), ("val", validation)):
            self._tensors[name] = tuple(
                torch.as_tensor(getattr(batch, f), dtype=torch.float32, device=self.device)
                for f in ("features", "range0", "range1", "value0", "value1"))
        masks = card_masks(self.net.spec)
        self._free = {}
        for name, batch in (("train", train), ("val", validation)):
            board = batch.features[:, :self.net.spec.features.num_cards].astype(np.int64)
            self._free[name] = tuple(
                torch.as_tensor((board @ m.astype(np.int64)) == 0, device=self.device)
                for m in masks)

    def add_data(self, train: StateBatch, validation: StateBatch | None = None) -> None:
        """Train on ``train`` besides the states it has (and measure on ``validation`` besides
        its held-out ones): e.g. the states a re-solving agent asks about (ReBeL's data from
        play), to fine-tune a net trained on random ones."""
        self.ensure_data()
        assert self.train is not None and self.validation is not None
        val = self.validation if validation is None else StateBatch.concatenate(
            [self.validation, validation])
        self._set_data(StateBatch.concatenate([self.train, train]), val)

    # Learning --------------------------------------------------------------------------------

    def iterate(self, n: int = 1) -> None:
        """``n`` training steps (minibatches of ``batch_size`` PBSs)."""
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
            raise ConfigError(f"iterate(n) needs a whole number of steps n >= 0, got {n!r}")
        self.ensure_data()
        cfg = self.config
        features, r0, r1, v0, v1 = self._tensors["train"]
        free0, free1 = self._free["train"]
        self.net.train()
        for _ in range(int(n)):
            if cfg.lr_halving:
                lr = cfg.learning_rate * 0.5 ** (self._iteration // cfg.lr_halving)
                for group in self.optimizer.param_groups:
                    group["lr"] = lr
            pick = torch.randint(0, features.shape[0], (cfg.batch_size,),
                                 generator=self.generator).to(self.device)
            batch: tuple[torch.Tensor, ...] = (
                features[pick], r0[pick], r1[pick], v0[pick], v1[pick], free0[pick].float(),
                free1[pick].float())
            if self.net.symmetries > 1:
                k = torch.randint(0, self.net.symmetries, (cfg.batch_size,),
                                  generator=self.generator).to(self.device)
                batch = self.net.relabel(k, *batch)
            f, q0, q1, t0, t1, m0, m1 = batch
            p0, p1 = self.net(f, q0, q1)
            # Squared error over the hands the board leaves, both players.
            err = ((p0 - t0) ** 2 * m0).sum() + ((p1 - t1) ** 2 * m1).sum()
            loss = err / (m0.sum() + m1.sum())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self._iteration += 1
            self._loss = float(loss.detach())
            if self._iteration % cfg.eval_every == 0:
                self.history.append((self._iteration, self.validation_error(), self._loss))
        self.net.eval()

    def validation_error(self, name: str = "val") -> float:
        """Mean absolute error of the values, chips per pot, over the free hands of both
        players of the validation (or ``"train"``) states."""
        self.ensure_data()
        features, r0, r1, v0, v1 = self._tensors[name]
        free0, free1 = self._free[name]
        total, count = 0.0, 0.0
        was_training = self.net.training
        self.net.eval()
        with torch.no_grad():
            for start in range(0, features.shape[0], 8192):
                part = slice(start, start + 8192)
                p0, p1 = self.net(features[part], r0[part], r1[part])
                total += float(((p0 - v0[part]).abs() * free0[part]).sum()
                               + ((p1 - v1[part]).abs() * free1[part]).sum())
                count += float(free0[part].sum() + free1[part].sum())
        self.net.train(was_training)
        return total / count

    def metrics(self) -> dict[str, float]:
        """The latest validation error (chips per pot) and training loss."""
        return {"value_val_error_pot": self.validation_error(), "value_train_loss": self._loss}

    # Checkpoints -----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "game": game_record(self.game), "config": asdict(self.config), "seed": self.seed,
            "iteration": self._iteration, "loss": self._loss,
            "history": [list(h) for h in self.history],
            "net": {"spec": self.net.spec.to_json(),
                    "weights": {k: v.detach().cpu() for k, v in self.net.state_dict().items()}},
            "optimizer": self.optimizer.state_dict(),
            "generator": self.generator.get_state(),
        }
        if not self.config.data_dir and self.train is not None and self.validation is not None:
            state["data"] = {name: {f: getattr(batch, f) for f in StateBatch.FIELDS}
                             for name, batch in (("train", self.train),
                                                 ("val", self.validation))}
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("game") != game_record(self.game):
            raise ConfigError(f"this trainer state is for {state.get('game')}, not "
                              f"{game_record(self.game)}; build the trainer for its game")
        if state.get("config") != asdict(self.config):
            raise ConfigError("this trainer state was saved with other training settings; "
                              "build the trainer with the settings it was saved with")
        iteration = checked_int(state["iteration"], "iteration", high=10**15)
        net = net_from_state(state["net"], self.game, self.device)
        self.net.load_state_dict(net.state_dict())
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])
        self._iteration = iteration
        self._loss = float(state["loss"])
        self.history = [(int(s), float(e), float(loss)) for s, e, loss in state["history"]]
        if "data" in state:
            data = state["data"]
            self._set_data(*(StateBatch(*(np.asarray(data[name][f]) for f in StateBatch.FIELDS))
                             for name in ("train", "val")))
        else:
            self.train = self.validation = None  # read again from data_dir on first use

    def save(self, path: str | os.PathLike) -> None:
        """Write the trainer's state to ``path`` atomically (no pickle)."""
        write_checkpoint(path, agent_name=CHECKPOINT_NAME, state=self.state_dict(),
                         meta={"iteration": self._iteration})

    def load(self, path: str | os.PathLike) -> None:
        _, state = read_checkpoint(path, agent_name=CHECKPOINT_NAME)
        try:
            self.load_state_dict(state)
        except (KeyError, TypeError, RuntimeError) as exc:
            raise CheckpointError(f"{path} does not fit this trainer ({type(exc).__name__}: "
                                  f"{exc})") from exc

    def save_net(self, path: str | os.PathLike) -> None:
        """The network alone (``value_net.load_value_net`` reads it)."""
        save_value_net(path, self.net, meta={"steps": self._iteration,
                                             "validation_error_pot": self.validation_error()})

    def plot_curve(self, path: str | os.PathLike) -> Path:
        """A PNG of the validation error (chips per pot) against training steps."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from pokerzoo.atomic import write_figure

        fig, ax = plt.subplots(figsize=(6, 4))
        if self.history:
            steps, errors, _ = zip(*self.history, strict=True)
            ax.plot(steps, errors, marker="o", markersize=3)
        ax.set_yscale("log")
        ax.set_xlabel("training steps")
        ax.set_ylabel("validation error (chips per pot)")
        ax.set_title(f"value network, {self.game.name}")
        ax.grid(True, alpha=0.3)
        try:
            return write_figure(fig, path, what="curve", dpi=120, bbox_inches="tight")
        finally:
            plt.close(fig)
