"""Lemma proofs, one file per lemma (see the issues)."""
