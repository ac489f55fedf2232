"""Engine-vs-engine matches (``canopy match``): SPECs, openings, the runner and Elo maths."""
