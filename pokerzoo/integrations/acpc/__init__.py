"""pokerzoo and the ACPC protocol."""
