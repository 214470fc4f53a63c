"""The proof layer: claims and how they are decided.

The claim language (:mod:`.claims`), claims in an interpretation (:mod:`.encoding`),
the engine (:mod:`.engine`) with its back ends (:mod:`.solve`), enumeration
(:mod:`.exhaustive`), replay (:mod:`.replay`) and results store (:mod:`.store`); the
lemma API of the proof files (:mod:`.lemmas`: ``Lemma``, discovery, rows), the
conditions of an activation (:mod:`.conditions`) and the solver-free cross-check
(:mod:`.crosscheck`).  Imports only from :mod:`fpsmt.semantics`.
"""
