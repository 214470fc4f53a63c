"""The searches of ``fpsmt counterexample``: ∃ claims whose witnesses break a law of exact
arithmetic (BRIEF §3, §5.0).  Decided by the engine like every claim: store, portfolio,
time limit, and every model replayed in the executor.

* ``associativity`` — a, b, c with (a⊗b)⊗c ≠ a⊗(b⊗c), every value finite.
* ``proportionality`` — a 1-2-1 ReLU network with symbolic weights, an input x and
  upstream gradients y1, y2 with D(y2)·y1 ≠ D(y1)·y2 as exact rationals, every value
  (weights, x, y's, pre-activations, outputs, gradients) finite and y1, y2, D(y1), D(y2)
  nonzero.  In exact arithmetic D(y) = J·y, so D(y2)·y1 = D(y1)·y2 always.

Provenance: BRIEF §3 ("in exact arithmetic D(y) is proportional to y, in floating point
it is not") and the paper's premise (a⊗b)⊗c ≠ a⊗(b⊗c).
"""

from fpsmt.proof.claims import Float, Param, exists
from fpsmt.semantics.network import Layer, Network
from fpsmt.semantics.network import Param as NetParam


def _assoc(s):
    lhs = s.let("(a⊗b)⊗c", (s.a * s.b) * s.c)
    rhs = s.let("a⊗(b⊗c)", s.a * (s.b * s.c))
    return [lhs.is_finite(), rhs.is_finite(), ~lhs.eq(rhs)]


associativity = exists(
    "associativity", {n: Float(finite=True) for n in "abc"}, such_that=_assoc,
    doc="(a⊗b)⊗c ≠ a⊗(b⊗c), all finite")

WEIGHTS = ("w1_0", "w1_1", "b1_0", "b1_1", "w2_0", "w2_1", "b2_0")


def proportionality_network(fmt) -> Network:
    """1 input -> 2 ReLU neurons -> 1 output, every weight and bias symbolic."""
    P = NetParam
    return Network(fmt, [
        Layer.dense([[P("w1_0")], [P("w1_1")]], [P("b1_0"), P("b1_1")], "relu"),
        Layer.dense([[P("w2_0"), P("w2_1")]], [P("b2_0")], "identity"),
    ])


def _prop(s):
    net = proportionality_network(s.fmt)
    params = {p: s[p] for p in WEIGHTS}
    out, (d1,), (pre, _, _) = s.run(net, [s.x], [s.y1], params=params, trace=True)
    _, (d2,) = s.run(net, [s.x], [s.y2], params=params)
    s.let("f(x)", out[0])
    s.let("D(y1)", d1)
    s.let("D(y2)", d2)
    finite = [v.is_finite() for layer in pre for v in layer] + [d1.is_finite(), d2.is_finite()]
    return finite + [~d.is_zero() for d in (s.y1, s.y2, d1, d2)] + [~s.products_equal(d2, s.y1, d1, s.y2)]


proportionality = exists(
    "proportionality", {**{p: Param(finite=True) for p in WEIGHTS}, **{n: Float(finite=True) for n in ("x", "y1", "y2")}},
    such_that=_prop,
    doc="1-2-1 ReLU net: D(y2)·y1 ≠ D(y1)·y2 exactly; all values finite; y1, y2, D(y1), D(y2) ≠ 0")

KINDS = {"associativity": associativity, "proportionality": proportionality}
