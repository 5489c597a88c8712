"""Small network blocks shared by the neural agents: MLPs and masked action heads.

Poker action spaces are tiny and most rows have illegal actions, so every head here takes a
legal-action mask and never lets an illegal action win a max or receive probability.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import torch
from torch import nn

ILLEGAL_LOGIT = -1e9
"""Stands in for minus infinity: finite, so masked rows never produce NaNs in softmax."""


def mlp(
    input_size: int,
    hidden_sizes: Sequence[int],
    output_size: int,
    generator: torch.Generator | None = None,
) -> nn.Sequential:
    """A ReLU multilayer perceptron, initialised from ``generator`` (reproducible, no global RNG).

    >>> net = mlp(4, (8,), 2, torch.Generator().manual_seed(0))
    >>> tuple(net(torch.zeros(3, 4)).shape)
    (3, 2)
    """
    sizes = [input_size, *hidden_sizes, output_size]
    layers: list[nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    net = nn.Sequential(*layers)
    reset_parameters(net, generator)
    return net


def reset_parameters(net: nn.Module, generator: torch.Generator | None = None) -> None:
    """PyTorch's default ``nn.Linear`` initialisation (uniform +-1/sqrt(fan_in)), but seeded."""
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, nn.Linear):
                bound = 1.0 / module.in_features**0.5
                module.weight.uniform_(-bound, bound, generator=generator)
                module.bias.uniform_(-bound, bound, generator=generator)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions (``mask == 0``) pushed to ``ILLEGAL_LOGIT``."""
    return torch.where(mask > 0, logits, torch.full_like(logits, ILLEGAL_LOGIT))


def masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over legal actions only (exact zeros elsewhere)."""
    probs = torch.softmax(masked_logits(logits, mask), dim=-1)
    return probs * (mask > 0)


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-softmax over legal actions (illegal entries are very negative, never selected)."""
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def _minus_inf_outside(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    # -inf, not ILLEGAL_LOGIT: values (e.g. diverging Q-values) may lie below any finite bound.
    return torch.where(mask > 0, values, torch.full_like(values, -torch.inf))


def masked_max(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Row maxima over legal actions; 0 for rows without any legal action (terminal rows)."""
    best = _minus_inf_outside(values, mask).max(dim=-1).values
    return torch.where(mask.sum(dim=-1) > 0, best, torch.zeros_like(best))


def masked_argmax(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Row argmax over legal actions (first legal index on ties)."""
    return _minus_inf_outside(values, mask).argmax(dim=-1)


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(count)``, restoring the caller's setting
    after: small networks lose more time to thread synchronisation than threads save."""
    saved = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(saved)
