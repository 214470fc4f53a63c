"""fpsmt: SMT-checked proofs about floating-point neural networks and their AD gradients."""

__version__ = "0.1.0"

from fpsmt.semantics.formats import Format, parse_format  # noqa: E402,F401
