"""The semantics layer: what a floating-point network means, independent of any solver.

Formats (:mod:`.formats`), the network IR with its forward pass and D^AD written once
(:mod:`.network`, summation orders and backward formulas as registries), the arithmetic
interface and its interpretations (:mod:`.arith`: the executor, the exact reference, Z3
terms), and the activations (:mod:`.activations`: exact σ, σ', correct rounding, tables,
true facts).  Imports nothing from the layers above it.
"""
