"""Agents: tabular solvers, fictitious play, NFSP, VCFR, deep methods."""
