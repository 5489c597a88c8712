"""The range engine: public trees and their builder (``tree``, ``tree_builder``), the solver
and its pass API (``solver``), the compiled sweep (``sweep_kernel``) and the backends behind it
(``backend``, ``torch_backend``), hold'em terminals (``holdem_terminal``), Kuhn and Leduc as
public trees (``small_games``), results and saved solvers (``results``, ``validation``), and
the cold-cache compile (``warm_start``). Nothing here knows about spot files or subgames."""
