"""Agents of unknown-environment games: VCFR and its relatives, PSRLCFR and the baselines.

All learn only from hands played in the environment (through an interaction view) and count
one interaction episode as one unit of ``iterate``; see ``base``.
"""
