"""Seeded synthetic users with ground truth, for the insight models' evaluation (never deployed)."""
