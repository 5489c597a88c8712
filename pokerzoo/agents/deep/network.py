"""The network of Deep CFR (Brown et al. 2019) and Deep GXFP: card and betting branches.

Seven linear layers with ReLU: the card inputs and the betting inputs each pass through their
own four layers (1-4), the two are concatenated and joined by layer 5, and layers 6-7 lead to
one output per action. Every weight is Xavier-uniform initialised, biases start at zero. The
outputs are masked to the legal actions: ``policy_logits`` gives ``-inf`` to illegal actions
(so a softmax puts no mass there), ``advantages`` gives them 0.

Which inputs are cards is read off the game's declared information-state layout
(``game.information_state_layout``, a ``TensorLayout`` of named ``Field``s), so the same code
serves Kuhn, Leduc and hold'em without special cases. The rule (``is_card_field``): a field is
a card field when its name contains ``card`` or ``rank`` (Kuhn/Leduc ``private_card``,
``public_card``, ``private_rank``, ``public_rank``; hold'em ``hole_cards``) or is a board
street (``flop``, ``turn``, ``river``, ``board``); every other field (seat, round, pot,
stacks, contributions, per-round action slots) is betting.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import torch
from torch import nn

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import TensorLayout

BOARD_FIELDS = ("flop", "turn", "river", "board")
"""Field names that are cards without saying so (hold'em's board streets)."""

BRANCH_LAYERS = 4
"""Layers each branch has before the join (the join is layer 5 of 7)."""


def is_card_field(name: str) -> bool:
    """Whether the information-state field ``name`` holds cards (see the module docstring)."""
    lowered = name.lower()
    return "card" in lowered or "rank" in lowered or lowered in BOARD_FIELDS


def split_layout(layout: TensorLayout) -> tuple[np.ndarray, np.ndarray]:
    """``(card_indices, betting_indices)``: the tensor entries of ``layout`` in each branch."""
    card: list[int] = []
    betting: list[int] = []
    for f in layout.fields:
        s = layout.slice(f.name)
        (card if is_card_field(f.name) else betting).extend(range(s.start, s.stop))
    return np.asarray(card, dtype=np.int64), np.asarray(betting, dtype=np.int64)


def _branch(in_size: int, width: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for k in range(BRANCH_LAYERS):
        layers += [nn.Linear(in_size if k == 0 else width, width), nn.ReLU()]
    return nn.Sequential(*layers)


class CardBettingNet(nn.Module):
    """Seven layers: card and betting branches (layers 1-4) joined at layer 5, one output per
    action (layer 7).

    Args:
        layout: the game's information-state layout (decides the two branches' inputs).
        num_actions: outputs (the game's number of distinct actions).
        width: units per hidden layer (the papers use 64-192).
        generator: torch generator for the Xavier-uniform initialisation (reproducible runs).
    """

    def __init__(
        self,
        layout: TensorLayout,
        num_actions: int,
        width: int = 64,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        if width < 1 or num_actions < 1:
            raise ConfigError(
                f"width and num_actions must be >= 1, got width={width}, num_actions={num_actions}"
            )
        card, betting = split_layout(layout)
        if len(card) == 0 or len(betting) == 0:
            raise ConfigError(
                "the information-state layout needs both card fields (names with 'card', "
                f"'rank', or {BOARD_FIELDS}) and betting fields; got fields "
                f"{[f.name for f in layout.fields]}"
            )
        self.input_size = layout.size
        self.num_actions = num_actions
        self.width = width
        self.card_index: torch.Tensor
        self.betting_index: torch.Tensor
        self.register_buffer("card_index", torch.as_tensor(card), persistent=False)
        self.register_buffer("betting_index", torch.as_tensor(betting), persistent=False)
        self.card = _branch(len(card), width)
        self.betting = _branch(len(betting), width)
        self.trunk = nn.Sequential(
            nn.Linear(2 * width, width), nn.ReLU(),  # layer 5: the join
            nn.Linear(width, width), nn.ReLU(),  # layer 6
            nn.Linear(width, num_actions),  # layer 7
        )
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight, generator=generator)
                nn.init.zeros_(module.bias)

    def branches(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The card and betting branches' outputs (layer 4 of each) for inputs ``[B, size]``."""
        card_in = x.index_select(-1, self.card_index)
        betting_in = x.index_select(-1, self.betting_index)
        return self.card(card_in), self.betting(betting_in)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Unmasked outputs ``[B, num_actions]``."""
        card, betting = self.branches(x)
        return self.trunk(torch.cat([card, betting], dim=-1))

    def policy_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Outputs with illegal actions (``mask`` false) at ``-inf``."""
        return self(x).masked_fill(~mask.bool(), float("-inf"))

    def advantages(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Outputs with illegal actions (``mask`` false) at 0."""
        return self(x).masked_fill(~mask.bool(), 0.0)

    def vary_cards(self, x: torch.Tensor, ones: torch.Tensor) -> torch.Tensor:
        """Unmasked outputs ``[P, num_actions]`` of the inputs ``x`` (``[size]``, the varied
        card entries at 0) with ones written at the input entries ``ones[k]`` (``[P, m]``,
        card entries) for each row ``k``: what ``forward`` gives for the ``P`` tensors, but
        the betting branch and the fixed card entries pass the network once, not ``P`` times
        (a range sweep over hole cards costs a third of the batched forward)."""
        position = torch.full((self.input_size,), -1, dtype=torch.long, device=x.device)
        position[self.card_index] = torch.arange(len(self.card_index), device=x.device)
        first = cast(nn.Linear, self.card[0])
        # Layer 1 is linear, so a one at an entry adds that entry's weight column.
        shared = first(x.index_select(-1, self.card_index)[None])  # [1, width]
        columns = first.weight.t().index_select(0, position[ones.reshape(-1)])
        hidden = shared + columns.reshape(*ones.shape, -1).sum(dim=1)
        card = self.card[2:](self.card[1](hidden))
        betting = self.betting(x.index_select(-1, self.betting_index)[None])
        return self.trunk(torch.cat([card, betting.expand(len(card), -1)], dim=-1))
