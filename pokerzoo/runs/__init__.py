"""What the scripts share: run folders and their config, ``load_agent``, the training run,
reports and curves, tournaments of saved runs, strategy pictures and the play session.

Nothing in the package imports ``runs`` (the scripts ``train.py``, ``evaluate.py`` and
``play.py`` do); it imports everything below it. Its modules are imported when used.
"""
