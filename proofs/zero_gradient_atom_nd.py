"""The zero-gradient atom for a point z of F^d (Lemma 3.4 on d-dimensional inputs:
fpsmt.constructions.relu_nd.zero_gradient_atom): value v at x = z and ±0 elsewhere on
X^d, D^AD = ±0 in every coordinate for every finite upstream y.

The block (layers 0–7): layers 0–4 are the d step pairs side by side, pair j reading x_j;
layer 5 the killers G_ja = relu(−|v| ⊗ 1[x_j >= z_j] ⊕ |v|) and G_jb (from 1[x_j <= z_j]);
layer 6 N = relu(Σ_j (−G_ja − G_jb) ⊕ |v|); layer 7 out = sgn(v) ⊗ N.  Three rows:

* ``repaired`` (every d up to 2^15), a proof tree:
  - ``step_ge``, ``step_le``: each step block inside any d-wide layer: every absent term
    of every layer, the first (the other inputs) included, any ±0 (forward and backward
    stand-ins); its output is its indicator, its gradient w.r.t. its input a zero, each
    hidden value and gradient finite — for every finite upstream y.  So, layer by layer
    (a value at layer k depends on the stand-ins of layers <= k only), every absent term
    of the whole's layers 0–5 is +0 ⊗ a finite value, a zero (the semantics' absent sum,
    :func:`fpsmt.semantics.network.fold`), and the stand-ins cover it;
  - ``pair`` (a join): the two give the pair (1[x_j >= z_j], 1[x_j <= z_j]);
  - ``coordinate``: on that pair, with the killer rows' absent terms any ±0: G_ja, G_jb
    are +0 or b = |v|, both +0 at x_j = z_j, one of them b at x_j != z_j when b != 0;
    their gradients into the pair are zeros when the upstream u is a zero, x_j = z_j or
    b = 0 (the only cases the atom meets), and their rows' terms u ⊗ ReLU'(pre) finite
    (so the other columns' absent terms of them are zeros);
  - ``fold``: the induction of proofs/coordinates_nd.py over the 2d killer terms of N's
    row (lead −0, K = b, U = −b): N's sum is −0 while every killer is +0 (m = 0), at most
    −b once one is b (m = 1); ``zga_n`` shows −0 ⊕ −b <= −b and (S ⊕ Z) ⊕ b <= 0;
  - ``top``: from the fold's conclusion, out = v bit for bit when m = 0, out a zero when
    m = 1; the gradient u into every killer row finite, a zero when m = 1;
  - ``zeros_sum``: a zero ⊕ a zero is a zero (so D^AD w.r.t. x_j, the sum of the pair's
    first-layer terms and the other rows' absent terms, is a zero).
  What joins them is argued, not a claim: m = 1 exactly when some killer is b, which at
  b != 0 is exactly when some x_j != z_j (``coordinate``); at m = 0 with b != 0 every
  x_j = z_j, so every killer's gradient into its pair is a zero, and at m = 1 u is a
  zero; the pairs then give D^AD = ±0 (``step_ge``, ``step_le``, ``zeros_sum``).
  tests/test_atoms_nd.py runs the argument's premises on built networks: the stage
  networks are the whole's slices and every absent term of the whole is a zero.
* ``repaired``, d = 2 and d = 3 (formats of at most 16 bits): the block as one claim with
  z and x symbolic in X^d, decided whole — a check of the tree on the built networks.
"""

from fpsmt.constructions import relu as C, relu_nd as N
from fpsmt.proof.claims import Float, forall, zero_variables
from fpsmt.errors import InputError
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, join, sequence, stage
from fpsmt.proofs import coordinates_nd as K
from fpsmt.proofs.common import (FINITE, STEP_GE, STEP_LE, STEP_PAIR, X_DOM, finite_inside, nd_variables, whole,
                                 xdesc, zero)

#: the dimensions of the whole-block rows (the tree row covers every d)
DIMS = (2, 3)


def _statement(fmt, d):
    return (f"d = {d}: for all z, x in {xdesc(fmt)}^{d}, every finite v and every finite y: out = v at x = z (bit "
            f"for bit) and ±0 elsewhere; D^AD(y) = ±0 in each of the {d} coordinates")


def block(d):
    """The d-dimensional atom as one whole-block claim (:func:`proofs.common.whole`)."""
    def one(s):
        net, P = N.zero_gradient_atom(s, *(s[f"z{j}"] for j in range(d)), s.v)
        return net, P, [s[f"x{j}"] for j in range(d)], [s.y]

    def expect(s, out, grad):
        at = N.at_point(s, d)
        return [at.implies(out[0].same(s.v)), (~at).implies(out[0].eq(0))] + [g.eq(0) for g in grad]
    return whole(f"zero_gradient_atom_nd.d{d}", {**nd_variables(d), "v": FINITE, "y": FINITE}, one, expect,
                 lambda fmt: C.concrete(N.zero_gradient_atom, fmt, *([0] * d), 0),
                 lambda fmt: _statement(fmt, d), doc=f"the zero-gradient atom for x in F^{d} as one claim")


def step_block(fmt, kind):
    """A step block inside a d-wide layer: every absent term of every layer (the first
    included) any ±0; its indicator, D^AD a zero, every hidden value and gradient finite."""
    build = C.step_ge if kind == "ge" else C.step_le
    net0 = C.step_network(fmt, kind)

    def run(s):
        net, P = build(s, s.z, C.REPAIRED)
        return s.run(net, [s.x], [s.y], params=P, trace=True, zeros=s.zeros(net, first=0))

    def side(s):
        _, grad, (pre, post, up) = run(s)
        return [grad[0].is_zero()] + finite_inside(post, up) + \
            [(g * s.sigma_prime(C.hidden(), z)).is_finite() for layer in zip(up, pre) for g, z in zip(*layer)]
    return stage(f"zero_gradient_atom_nd.step_{kind}", {"z": X_DOM, "x": X_DOM, "y": FINITE,
                                                       **zero_variables(net0, first=0)},
                 STEP_GE if kind == "ge" else STEP_LE, lambda s: {kind: run(s)[0][0]}, side=side,
                 doc=f"1[x_j {'>=' if kind == 'ge' else '<='} z_j] inside a d-wide layer (every absent term any ±0)")


_B = Float(finite=True, sign="+")
#: a coordinate's two killers
COORD = Pred("zero_gradient_atom_nd.coordinate", {"z": X_DOM, "x": X_DOM, "b": _B, "Ga": Float(), "Gb": Float()},
             lambda s: [s.any(s.Ga.same(0), s.Ga.same(s.b)), s.any(s.Gb.same(0), s.Gb.same(s.b)),
                        s.x.eq(s.z).implies(s.all(s.Ga.same(0), s.Gb.same(0))),
                        s.all(~s.x.eq(s.z), ~s.b.is_zero()).implies(s.any(s.Ga.same(s.b), s.Gb.same(s.b)))],
             doc="G_ja, G_jb in {+0, b}; both +0 at x_j = z_j; one of them b at x_j != z_j when b != 0")


def coordinate(fmt):
    """Layer 5's two rows of one coordinate on its pair, forward and backward: the rows of
    the atom as built (for d = 1, whose layer 5 is exactly those two rows; for every d they
    are term for term the same, tests/test_atoms_nd.py), the absent terms any ±0."""
    from fpsmt.semantics.network import Network

    def rows(s):
        net, P = N.zero_gradient_atom(s, s.z, s.v)
        return s.run(Network(s.fmt, net.layers[5:6]), [s.ge, s.le], [s.u, s.u], params=P, trace=True,
                     zeros={"forward": {0: [s.Za, s.Zb]}, "backward": {0: [s.Wa, s.Wb]}})

    def side(s):
        _, grad, (pre, _, up) = rows(s)
        quiet = s.any(s.u.is_zero(), s.x.eq(s.z), s.v.is_zero())
        return [quiet.implies(s.all(grad[0].is_zero(), grad[1].is_zero()))] + \
            [(s.u * s.sigma_prime(C.hidden(), p)).is_finite() for p in pre[0]]
    return stage("zero_gradient_atom_nd.coordinate", {"v": FINITE, "u": FINITE, "Za": zero(), "Zb": zero(),
                                                      "Wa": zero(), "Wb": zero()},
                 COORD, lambda s: {"b": abs(s.v), **dict(zip(("Ga", "Gb"), rows(s)[0]))}, STEP_PAIR, side=side,
                 doc="layer 5's rows of one coordinate (their absent terms any ±0): the killers, and gradients into "
                     "the pair that are zeros when u is a zero, x_j = z_j or v = 0")


def top(fmt):
    """Layers 6–7 from the fold's conclusion: N = relu(S ⊕ b), out = (sgn ⊗ N) ⊕ −0."""
    def goal(s):
        pre = s.S + s.b
        N = s.sigma(C.hidden(), pre)
        sgn = s.where(s.v.is_negative(), -1, 1)
        out = sgn * N + (-s.const(0))
        u = (s.y * sgn) * s.sigma_prime(C.hidden(), pre)
        uG = u * -1
        return [s.m.eq(0).implies(out.same(s.v)), s.m.eq(1).implies(s.all(out.is_zero(), uG.is_zero())),
                uG.is_finite()]
    c = forall("zero_gradient_atom_nd.top", {"v": FINITE, "y": FINITE, "b": _B, "S": Float(), "m": K._m, "n": K._k},
               given=lambda s: [s.b.same(abs(s.v)), K.FOLDED.holds(s, t=-s.const(0), K=s.b, U=-s.b)],
               goal=goal, doc="N and out from the sum over the killers: out = v at m = 0, a zero with a zero "
                              "gradient into the killers at m = 1")
    return Node("stage", c.name, c, doc=c.doc, uses={"premise": [K.FOLDED]})


def zeros_sum(fmt):
    c = forall("zero_gradient_atom_nd.zeros_sum", {"a": zero(), "c": zero()}, goal=lambda s: (s.a + s.c).is_zero(),
               doc="a zero ⊕ a zero is a zero (so is any sum of zeros, term by term)")
    return Node("fact", c.name, c, doc=c.doc)


def tree(fmt):
    pair = join("zero_gradient_atom_nd.pair", [STEP_GE, STEP_LE], STEP_PAIR,
                doc="the two step blocks of one coordinate give its pair")
    coord = sequence("zero_gradient_atom_nd.coordinates", [step_block(fmt, "ge"), step_block(fmt, "le")] +
                     [pair, coordinate(fmt)])
    uses = [u for u in K.uses(fmt) if u.name == "coordinates_nd.zga_n"]
    return Node("lemma", "zero_gradient_atom_nd", None, [coord, K.fold(fmt), *uses, top(fmt), zeros_sum(fmt),
                                                         K.relu_off(fmt)])


def repaired(fmt):
    return tree(fmt), (f"every d <= {K.TERMS_MAX // 2}: for all z, x in {xdesc(fmt)}^d, every finite v and every "
                       "finite y: out = v at x = z (bit for bit) and ±0 elsewhere; D^AD(y) = ±0 in every coordinate; "
                       "proved as a tree: each coordinate's step blocks and killers inside d-wide layers, the "
                       "induction over the killer terms, the top layers")


#: the widest format given the whole-block rows (the tree covers every format)
WHOLE_BITS = 16


def _extra(fmt):
    return [("repaired", *block(d)(fmt, None)) for d in DIMS] if fmt.nbits <= WHOLE_BITS else []


def profiled(fmt, sem):
    """Under a semantics profile: the d = 2 atom as one whole-block claim (the tree's
    statement is for every d; one claim states one d, so the row says d = 2), in formats of
    at most :data:`WHOLE_BITS` bits."""
    if fmt.nbits > WHOLE_BITS:
        raise InputError(f"the d = 2 whole-block claim is stated in formats of at most {WHOLE_BITS} bits")
    claims, statement = block(2)(fmt, sem)
    return claims, statement + " (under a profile: d = 2 only, one whole-block claim)"


LEMMA = Lemma("zero_gradient_atom_nd", "Lemma 3.4 for x in F^d (BRIEF §5; Theorem 3.1's X^d)",
              {"repaired": repaired}, order=72, only=("repaired",), extra=_extra, whole=profiled)
