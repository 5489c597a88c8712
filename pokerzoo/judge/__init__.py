"""The judge: outside players (a Python callable, a program on stdin/stdout, an OpenSpiel or
RLCard agent, an LLM behind an OpenAI-compatible endpoint) asked every decision of a game and
scored by exact numbers: NashConv and exploitability on Kuhn and the Leduc family, EV loss on
solved hold'em spots, and chips in duplicate matches against pokerzoo's agents.

The judge stands above evaluation, agents and integrations: it measures with the first, plays
against the second's reference agents and reaches OpenSpiel and RLCard through the third.
"""
