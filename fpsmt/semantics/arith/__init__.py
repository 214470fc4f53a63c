"""Floating-point arithmetic: one interface, several interpretations.

* :func:`concrete` — the bit-exact executor (vectorised over inputs);
* :class:`ExactArith` — exact rationals rounded once per operation (the reference);
* :class:`Z3Arith` — Z3 floating-point terms (the SMT encoding).
"""

from fpsmt.semantics.arith.base import Arith  # noqa: F401
from fpsmt.semantics.arith.concrete import HostArith, NativeArith, concrete, host_ok  # noqa: F401
from fpsmt.semantics.arith.exact import ExactArith  # noqa: F401
from fpsmt.semantics.arith.symbolic import Z3Arith, fold_bits, model_bits  # noqa: F401


def symbolic(fmt, uninterpreted=(), anchors=()):
    """The symbolic interpretation for ``fmt`` (Z3 terms): what the proof layer encodes claims
    in; ``uninterpreted``: operations that are uninterpreted functions there ("mul", "add",
    "act"); ``anchors``: float patterns where known functions' true values bound them
    (:attr:`fpsmt.proof.claims.Claim.anchors`)."""
    return Z3Arith(fmt, uninterpreted=uninterpreted, anchors=anchors)
