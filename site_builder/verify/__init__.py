"""Verification: every solver on every sample, judged as a judge would, and the verdict cache."""
