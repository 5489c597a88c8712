"""Neural full-game solvers: Deep CFR and the card/betting network of Deep CFR and Deep GXFP."""
