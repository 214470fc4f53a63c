"""The construction layer: blocks and theorem networks, per activation.

:mod:`.registry` ties an activation to its blocks, its lemmas and its theorem constants
(constructions are discovered: a module here that defines ``CONSTRUCTIONS``);
:mod:`.relu` holds the ReLU blocks (indicators, suppression, transfer, atoms, ⊞) and
:mod:`.blockrun` the block-aware evaluation that verifies a ⊞ network with the network's
own summation code.  Imports from :mod:`fpsmt.semantics` and :mod:`fpsmt.proof`.
"""
