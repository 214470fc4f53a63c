"""The fixed claim suite of benchmarks/solvers.py (every one decided per format).

`step_indicator_ge` is the parametric step indicator of BRIEF §5.1 (the authors' released
weights) for every normal z with 0 < e_z <= e_max − p − 2 and every x of the domain
X = [−2^(e_max−2), 2^(e_max−2)]; its weights are computed from z's fields by exact
operations.  (The full lemma set, with the repaired construction, is the subject of proofs/.)
"""

from fpsmt.proof.claims import Float, Int, exists, exists_forall, forall
from fpsmt.semantics.network import Layer, Network, Param


def _relu(s, v):
    return s.where(v > 0, v, 0)


# ---------------------------------------------------------------- arithmetic
assoc_witness = exists(
    "assoc_witness", {"a": Float(finite=True), "b": Float(finite=True), "c": Float(finite=True)},
    such_that=lambda s: [((s.a * s.b) * s.c).is_finite(), (s.a * (s.b * s.c)).is_finite(),
                         ((s.a * s.b) * s.c).ne(s.a * (s.b * s.c))])

mul_one_identity = forall("mul_one_identity", {"x": Float(finite=True)}, goal=lambda s: (s.x * 1).same(s.x))

mul_assoc = forall(
    "mul_assoc", {"a": Float(finite=True), "b": Float(finite=True), "c": Float(finite=True)},
    goal=lambda s: ((s.a * s.b) * s.c).eq(s.a * (s.b * s.c)))

add_exact_small = exists_forall(
    "add_exact_small", {"d": Float(finite=True, nonzero=True)}, {"x": Float(range=(1, 2))},
    goal=lambda s: [((s.x + s.d) - s.d).eq(s.x), (s.x + s.d).ne(s.x)])

no_neutral = exists_forall(
    "no_neutral", {"d": Float(finite=True, nonzero=True)}, {"x": Float(finite=True)},
    goal=lambda s: (s.x + s.d).same(s.x))

sterbenz = forall(
    "sterbenz", {"x": Float(finite=True, sign="+"), "y": Float(finite=True, sign="+")},
    given=lambda s: [s.y * 0.5 <= s.x, s.x <= s.y * 2],
    goal=lambda s: ((s.x - s.y) + s.y).eq(s.x))

pow2_normal = forall(
    "pow2_normal", {"k": Int(lambda f: f.e_min, lambda f: f.e_max)},
    goal=lambda s: s.k.pow2().is_normal() & (s.k.pow2() > 0))


# ---------------------------------------------------------------- networks
def _decoupling_net(fmt):
    B = fmt.round(3 * 2 ** fmt.M)  # 1.5 * 2^(M+1): not a power of two, ulp 2
    w = fmt.round(2 ** -10)
    return Network(fmt, [Layer.dense([[w]], [B], "relu"), Layer.dense([[fmt.one_bits]], [B ^ fmt.sign_bit])]), w


def _decoupling_goal(s):
    net, w = _decoupling_net(s.fmt)
    out, grad = s.run(net, [s.x], [s.y])
    return [out[0].same(0), grad[0].same(s.y * s.const(hex(w)))]


decoupling = forall(
    "decoupling", {"x": Float(range=(-512, 512)), "y": Float(finite=True)},
    goal=_decoupling_goal,
    doc="BRIEF §5.0: value exactly 0 and AD gradient y ⊗ w at every |x| <= 512.")


def _step_net(fmt):
    """1[x >= z]: g = relu(-x + beta); h_i = relu(-A*g + B_i); out = relu(S*h1 + (-S)*h2)."""
    m1 = fmt.one_bits ^ fmt.sign_bit
    neg0 = fmt.sign_bit  # -0: the exact identity of ⊕, i.e. "no bias"
    return Network(fmt, [
        Layer.dense([[m1]], [Param("beta")], "relu"),
        Layer.dense([[Param("negA")], [Param("negA")]], [Param("B1"), Param("B2")], "relu"),
        Layer.dense([[Param("S"), Param("negS")]], [neg0], "relu"),
    ])


def _step_goal(s):
    f = s.fmt
    p, e0 = f.M, 2 ** (f.E - 2) - 1
    z = s.z
    e = z.exponent()
    a = z * (-e).pow2()  # the significand a_z in [1, 2), exactly
    u0 = s.const(2.0 ** -p)
    powtwo = a.eq(1)
    ut = s.where(powtwo, s.const(2.0 ** -(p + 1)), 0)
    params = {
        "beta": (2 - u0) * e.pow2(),
        "negA": -(s.int_pow2(e0) * (-e).pow2()),  # −2^(p − e_z + k), k = −p + e0
        "B1": ((2 - a) - ut) * s.int_pow2(e0),
        "B2": ((2 - a) - u0) * s.int_pow2(e0),
        "S": s.where(powtwo, s.const(2.0 ** (1 + p - e0)), s.const(2.0 ** (p - e0))),
    }
    params["negS"] = -params["S"]
    out, _ = s.run(_step_net(f), [s.x], params=params)
    return out[0].same(s.where(s.x >= z, 1, 0))


step_indicator_ge = forall(
    "step_indicator_ge",
    {"z": Float(normal=True, sign="+"), "x": Float(range=(lambda f: -2.0 ** (f.e_max - 2),
                                                          lambda f: 2.0 ** (f.e_max - 2)))},
    given=lambda s: [s.z.exponent() > 0, s.z.exponent() <= s.fmt.e_max - s.fmt.M - 2],
    goal=_step_goal,
    doc="BRIEF §5.1 step indicator 1[x >= z], released weights, 0 < e_z <= e_max − p − 2, x in X.")

SUITE = [assoc_witness, mul_one_identity, mul_assoc, add_exact_small, no_neutral, sterbenz, pow2_normal,
         decoupling, step_indicator_ge]
