"""What the scripts share: run folders and their config, ``load_agent``, the training run (on
a game or a foreign AEC env), reports and curves, tournaments of saved runs, saved runs scored
at a spot, strategy pictures, the play session and the spot solve.

Nothing in the package imports ``runs`` (the scripts ``train.py``, ``evaluate.py``,
``play.py`` and ``solve.py`` do, and the front door's ``load_agent`` on call); it imports
everything below it. Its modules are imported when used.
"""
