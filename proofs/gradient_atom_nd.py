"""The gradient atom GA_i for a point z of F^d (Lemma 3.5 on d-dimensional inputs:
fpsmt.constructions.relu_nd.gradient_atom): value ±0 on X^d; D^AD w.r.t. x_i is g at
x = z with upstream h, and ±0 elsewhere for every finite upstream y; D^AD w.r.t. every
other coordinate is ±0 everywhere (h ≠ 0 finite, g ≠ 0 finite).

The block (fpsmt.constructions.relu_nd.gradient_atom): layers 0–4 the d step pairs and T =
relu(x_i ⊖ z_i⁻) side by side; layer 5 T and every coordinate's killers G_ja, G_jb (+0 at
x_j = z_j, one of them C = 2^e_max elsewhere); layer 6 T and A = relu(C ⊖ Σ killers);
layer 7 T, G1 = relu(C ⊖ A) and G2 = +0; from layer 8 on the 1-D atom's gate row, chain
and output on (T, G1, G2).  Rows:

* ``repaired`` (every d up to 2^15), a proof tree:
  - the step blocks inside d-wide layers and the pair (the zero-gradient atom's stages,
    proofs/zero_gradient_atom_nd.py), and ``coordinate``: a coordinate's killers on its
    pair (their absent terms any ±0), +0 at x_j = z_j, one of them C elsewhere, with
    zero gradients into the pair when their upstream is a zero or x_j = z_j;
  - ``T``: T through layers 0–5 inside d-wide layers (every absent term any ±0, the
    first layer's included): T5 of the 1-D tree, and its gradient: the upstream where T > 0
    (PASS), a zero where T = 0 or the upstream is a zero;
  - ``fold`` and ``ga_any`` (proofs/coordinates_nd.py): A's sum over the 2d killer terms
    is −0 while every killer is +0 (m = 0), at most −C once one is C (m = 1);
  - ``collapse``: layers 6–8 on (T, that sum): (R, G1, G2) = (z_i − z_i⁻, +0, +0) at
    m = 0 and (+0, C, +0) at m = 1 — the 1-D gate's states at x = z and x != z; the
    gradient into T passed through at m = 0 (PASS), a zero at m = 1; A's term into the
    killers a zero always;
  - from (R, G1, G2) on, the 1-D atom's tree (proofs/gradient_atom.py ``chain_parts``: the
    shrinks, the chain at x = z and, from ``collapse``'s (+0, C, +0), killed; the output,
    the transfer and the backward chain's product): the very claims of the 1-D row;
  - ``zeros_sum``, ``plus_zero``: D^AD w.r.t. x_i is T's first-layer term plus zeros (the
    pair's terms, the absent ones), so T's; w.r.t. every other x_j a sum of zeros.
  Argued, not a claim: m = 1 exactly when some x_j != z_j (``coordinate``: C != 0), so
  m = 0 gives x_i = z_i, T = z_i − z_i⁻, and the 1-D tree's x = z; every killer's
  upstream is A's term, a zero.  tests/test_atoms_nd.py checks on built networks that the
  stages' networks are the whole's slices (layer 8 on: the 1-D atom's layers) and that
  every absent term of the whole is a zero.
* ``repaired``, d = 2: GA_i as one claim per coordinate i with z and x symbolic in X^2,
  decided whole — in formats of at most 8 bits (wider ones get no such row): a check of
  the tree on the built networks.
"""

from fpsmt.constructions import relu as C, relu_nd as N
from fpsmt.proof.claims import Float, forall, zero_variables
from fpsmt.errors import InputError
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, join, sequence, stage
from fpsmt.proofs import coordinates_nd as K, gradient_atom as G, zero_gradient_atom_nd as Z
from fpsmt.proofs.common import FINITE, STEP_GE, STEP_LE, STEP_PAIR, X_DOM, finite_inside, nd_variables, whole, xdesc, \
    zero

#: the widest format whose whole-block claims the lemma states
MAX_BITS = 8


def _statement(fmt, d):
    return (f"d = {d}, every coordinate i < {d}: for all z, x in {xdesc(fmt)}^{d}, every finite h != 0, every finite "
            "g != 0 and every finite y: out = ±0; D^AD w.r.t. x_i = g (bit for bit) at x = z with upstream h and ±0 "
            "at x != z with upstream y; D^AD w.r.t. every other coordinate ±0")


def block(d, i):
    """GA_i for x in F^d as one whole-block claim (:func:`proofs.common.whole`)."""
    def one(s):
        net, P = N.gradient_atom(i)(s, *(s[f"z{j}"] for j in range(d)), s.h, s.g)
        return net, P, [s[f"x{j}"] for j in range(d)], [s.where(N.at_point(s, d), s.h, s.y)]

    def expect(s, out, grad):
        at = N.at_point(s, d)
        return [out[0].is_zero(), at.implies(grad[i].same(s.g)), (~at).implies(grad[i].is_zero())] + \
            [g.is_zero() for j, g in enumerate(grad) if j != i]
    variables = {**nd_variables(d), "h": Float(finite=True, nonzero=True), "g": Float(finite=True, nonzero=True),
                 "y": FINITE}
    return whole(f"gradient_atom_nd.d{d}.i{i}", variables, one, expect,
                 lambda fmt: C.concrete(N.gradient_atom(i), fmt, *([0] * d), fmt.round(1), fmt.round(1)),
                 lambda fmt: _statement(fmt, d), doc=f"GA_{i} for x in F^{d} as one claim")


def claims(d, fmt):
    return [c for i in range(d) for c in block(d, i)(fmt, None)[0]], _statement(fmt, d)


def _killer(s):
    return s.const(C.killer_constant(s.fmt))


#: a coordinate's two killers in the gradient atom
COORD = Pred("gradient_atom_nd.coordinate", {"z": X_DOM, "x": X_DOM, "Ga": Float(), "Gb": Float()},
             lambda s: [s.any(s.Ga.same(0), s.Ga.same(_killer(s))), s.any(s.Gb.same(0), s.Gb.same(_killer(s))),
                        s.x.eq(s.z).implies(s.all(s.Ga.same(0), s.Gb.same(0))),
                        (~s.x.eq(s.z)).implies(s.any(s.Ga.same(_killer(s)), s.Gb.same(_killer(s))))],
             doc="G_ja, G_jb in {+0, C}; both +0 at x_j = z_j, one of them C elsewhere")


def _one_d(fmt):
    """The d = 1 atom as built, with every parameter bound (z = 0, h = g = 1): its layers 5–8
    hold constants only (the killers, A, G1, G2, the gate row), each a slice of every d's
    (tests/test_atoms_nd.py)."""
    return C.concrete(N.gradient_atom(0), fmt, 0, fmt.round(1), fmt.round(1))


def _killer_rows(fmt):
    """The killer rows of the d = 1 atom's layer 5 (rows 1, 2 on columns ge, le; its row 0
    carries T, the T stage's), as a layer of their own."""
    from fpsmt.semantics.network import Layer, Network
    L = _one_d(fmt).layers[5]
    keep = [k for k in range(len(L.weights)) if L.rows[k] in (1, 2)]
    if any(L.cols[k] not in (0, 1) for k in keep):
        raise AssertionError("the killer rows read the step pair only")
    return Network(fmt, [Layer(2, 2, [int(L.rows[k]) - 1 for k in keep], [int(L.cols[k]) for k in keep],
                               [L.weights[k] for k in keep], list(L.bias[1:3]), L.activation)])


def coordinate(fmt):
    """Layer 5's killer rows of one coordinate on its pair (every absent term any ±0)."""
    def rows(s):
        return s.run(_killer_rows(s.fmt), [s.ge, s.le], [s.ua, s.ub], trace=True,
                     zeros={"forward": {0: [s.Za, s.Zb]}, "backward": {0: [s.Wa, s.Wb]}})

    def side(s):
        _, grad, (pre, _, _) = rows(s)
        quiet = s.any(s.all(s.ua.is_zero(), s.ub.is_zero()), s.x.eq(s.z))
        return [quiet.implies(s.all(grad[0].is_zero(), grad[1].is_zero()))] + \
            [(u * s.sigma_prime(C.hidden(), p)).is_finite() for u, p in zip((s.ua, s.ub), pre[0])]
    zs = {n: zero() for n in ("Za", "Zb", "Wa", "Wb")}
    return stage("gradient_atom_nd.coordinate", {"ua": FINITE, "ub": FINITE, **zs},
                 COORD, lambda s: dict(zip(("Ga", "Gb"), rows(s)[0])), STEP_PAIR, side=side,
                 doc="layer 5's killers of one coordinate (absent terms any ±0): +0 at x_j = z_j, one of them C "
                     "elsewhere; zero gradients into the pair when their upstream is a zero or x_j = z_j")


def _t_net(fmt):
    return G._t_net(fmt, 6)  # layers 0–5: the d-dimensional atom carries T through layer 5 too


def t_stage(fmt):
    """T through layers 0–5 inside d-wide layers: every absent term (the first layer's
    included) any ±0."""
    def run(s):
        net = _t_net(s.fmt)
        return s.run(net, [s.x], [s.u], params=C.step_params(s, "ge", s.z), zeros=s.zeros(net, first=0), trace=True)

    def side(s):
        (T,), (g,), (pre, post, up) = run(s)
        return G.t_gradient(s, T, g) + finite_inside(post, up) + \
            [(u * s.sigma_prime(C.hidden(), p)).is_finite() for layer in zip(up, pre) for u, p in zip(*layer)]
    return stage("gradient_atom_nd.T", {"z": X_DOM, "x": X_DOM, "u": FINITE, **zero_variables(_t_net(fmt), first=0)},
                 G.T5, lambda s: {"T": run(s)[0][0]}, side=side, states=[G.PASS],
                 doc="T = relu(x_i ⊖ z_i⁻) carried through layers 0–5 inside d-wide layers (absent terms any ±0)")


#: (R, G1, G2) after layer 8: the 1-D gate's states, at m = 0 (x = z) and m = 1
GATE_AT = Pred("gradient_atom_nd.gate", {"z": X_DOM, "x": X_DOM, "m": K._m, "R": Float(), "G1": Float(), "G2": Float()},
               lambda s: [s.m.eq(0).implies(s.all(s.x.eq(s.z), s.R.same(s.z - s.z.next_down()), s.G1.same(0),
                                                  s.G2.same(0))),
                          s.m.eq(1).implies(s.all(s.R.same(0), s.G1.same(_killer(s)), s.G2.same(0)))],
               doc="(R, G1, G2) = (z_i − z_i⁻, +0, +0) with x_i = z_i at m = 0; (+0, C, +0) at m = 1")
GATE_OFF = Pred("gradient_atom_nd.gate_off", {**GATE_AT.variables}, lambda s: [GATE_AT.holds(s), s.m.eq(1)],
                doc="(R, G1, G2) = (+0, C, +0): some x_j != z_j")


def _collapse_net(fmt):
    """Layers 6–8 on (T, S), S the sum of A's killer terms: layer 6 is T carried and A =
    relu(1 ⊗ S ⊕ C) (the whole's A row is relu(S ⊕ Z ⊕ C), 1 ⊗ S = S), layers 7–8 the d = 1
    atom's."""
    from fpsmt.constructions.relu import Plan
    from fpsmt.semantics.network import Network
    six = Plan(fmt, inputs=("T", "S"))
    six.add([C.carried(["T"])[0], ("A", [("S", 1)], C.killer_constant(fmt))])
    return Network(fmt, six.network(last_act=None).layers + _one_d(fmt).layers[7:9])


def collapse(fmt, shallow=False):
    """Layers 6–8 on T and A's killer sum: the 1-D gate's (R, G1, G2) (``shallow``: the 1-D
    shallow gate's (R, K, G1, G2), K's bias d = z_i − z_i⁻) at m = 0 and m = 1."""
    net_of = _collapse_net_s if shallow else _collapse_net
    outs = ("R", "K", "G1", "G2") if shallow else ("R", "G1", "G2")
    ups = ["uR", "uK", "u1", "u2"] if shallow else ["uR", "u1", "u2"]
    gate = GATE_AT_S if shallow else GATE_AT

    def run(s):
        net = net_of(s.fmt)
        up = [s.where(s.m.eq(0), s[u], s[u] * 0) for u in ups]
        kw = {"params": {"d": s.z - s.z.next_down()}} if shallow else {}
        return s.run(net, [s.T, s.S], up, trace=True, zeros=s.zeros(net, first=0), **kw)

    def side(s):
        _, grad, (pre, post, up) = run(s)
        a_term = up[0][1] * s.sigma_prime(C.hidden(), pre[0][1])  # A's gradient term, what each killer column gets ⊗ −1
        return [s.m.eq(0).implies(G.PASS.holds(s, u=s.uR, g=grad[0])), s.m.eq(1).implies(grad[0].is_zero()),
                a_term.is_zero()] + finite_inside(post, up)
    fin = Float(finite=True)

    def given(s):
        return [G.T5.holds(s), K.FOLDED.holds(s, t=-s.const(0), K=_killer(s), U=-_killer(s)),
                s.m.eq(0).implies(s.x.eq(s.z))]
    zs = zero_variables(net_of(fmt), first=0)
    name = "gradient_atom_nd.shallow.collapse" if shallow else "gradient_atom_nd.collapse"
    what = ("the 1-D shallow gate's (R, K, G1, G2)" if shallow else "the 1-D gate's (R, G1, G2)")
    c = forall(name, {"z": X_DOM, "x": X_DOM, "T": Float(), "S": Float(), "m": K._m, "n": K._k,
                      **{u: fin for u in ups}, **zs},
               given=given, goal=lambda s: [gate.holds(s, **dict(zip(outs, run(s)[0])))] + side(s),
               doc=f"layers 6–8{' of the shallow atom' if shallow else ''} on T and A's killer sum: {what} at m = 0 "
                   "and m = 1, T's gradient passed through at m = 0 and a zero at m = 1, A's term into the killers a "
                   "zero")
    return Node("stage", c.name, c, doc=c.doc, uses={"guarantee": gate, "premise": [G.T5, K.FOLDED],
                                                     "side": [G.PASS]})


def _collapse_zeros(fmt):
    return zero_variables(_collapse_net(fmt), first=0)


def killed_base(fmt):
    return stage("gradient_atom_nd.chain_killed.base", {"n": G._i}, G.KILLED_RUN, lambda s: {"i": 0}, GATE_OFF,
                 doc="the chain's state at x != z is the 1-D one: (R, G1, G2) = (+0, C, +0)")


def plus_zero(fmt):
    c = forall("gradient_atom_nd.plus_zero", {"a": Float(not_nan=True, nonzero=True), "c": zero()},
               goal=lambda s: [(s.a + s.c).same(s.a), (s.c + s.a).same(s.a)],
               doc="a ⊕ (a zero) = (a zero) ⊕ a = a for every a != ±0, not NaN")
    return Node("fact", c.name, c, doc=c.doc)


def tree(fmt, shallow=False):
    """The repaired tree; ``shallow``: the shallow atom's (its collapse with K, then the 1-D
    shallow tree's nodes after its gate)."""
    pair = join("gradient_atom_nd.pair", [STEP_GE, STEP_LE], STEP_PAIR,
                doc="the two step blocks of one coordinate give its pair")
    coord = sequence("gradient_atom_nd.coordinates",
                     [Z.step_block(fmt, "ge"), Z.step_block(fmt, "le"), pair, coordinate(fmt)])
    any_ = [u for u in K.uses(fmt) if u.name == "coordinates_nd.ga_any"]
    rest = ([collapse(fmt, shallow=True)] + G.shallow_chain_parts(fmt, GATE_OFF_S) if shallow
            else [collapse(fmt)] + G.chain_parts(fmt, killed_base(fmt)))
    return Node("lemma", "gradient_atom_nd", None,
                [coord, t_stage(fmt), K.fold(fmt), *any_, K.relu_off(fmt)] + rest
                + [Z.zeros_sum(fmt), plus_zero(fmt)])


# ------------------------------------------------------------------ the shallow variant
# fpsmt.constructions.relu_nd.gradient_atom(i, "shallow"): the same d-wide gate, its gate row
# with K = relu(d) (d = z_i − z_i⁻) beside R, then the 1-D shallow atom's chain and output.
# Its tree: the repaired one's stages up to the collapse, ``shallow.collapse`` (layers 6–8
# with K: the 1-D shallow gate's (R, K, G1, G2) at m = 0 and m = 1), then the 1-D shallow
# tree's nodes after its gate (proofs/gradient_atom.py ``shallow_chain_parts``: the very
# claims of the 1-D shallow row), its chain at x != z starting from this gate's state.
GATE_AT_S = Pred("gradient_atom_nd.shallow.gate", {**GATE_AT.variables, "K": Float()},
                 lambda s: [GATE_AT.holds(s), s.K.same(s.z - s.z.next_down())],
                 doc="(R, G1, G2) as GATE states them, and K = z_i − z_i⁻ at every x")
GATE_OFF_S = Pred("gradient_atom_nd.shallow.gate_off", {**GATE_AT_S.variables},
                  lambda s: [GATE_AT_S.holds(s), s.m.eq(1)], doc="(R, K, G1, G2) = (+0, z_i − z_i⁻, C, +0): some x_j != z_j")


def _collapse_net_s(fmt):
    """Layers 6–8 of the shallow atom on (T, S): layer 6 as :func:`_collapse_net`'s, layers
    7–8 the d = 1 shallow atom's (its K's bias the parameter ``d``)."""
    from fpsmt.semantics.network import Network
    one_d, _ = C.concrete_params(N.gradient_atom(0, C.SHALLOW), fmt, 0, fmt.round(1), fmt.round(1))
    return Network(fmt, _collapse_net(fmt).layers[:1] + one_d.layers[7:9])



def shallow_tree(fmt):
    return tree(fmt, shallow=True)


def shallow(fmt):
    return shallow_tree(fmt), (
        f"every d <= {K.TERMS_MAX // 2}, every coordinate i < d: for all z, x in {xdesc(fmt)}^d, every finite h != 0, "
        "every finite g != 0 and every finite y: out = ±0; D^AD w.r.t. x_i = g (bit for bit) at x = z with upstream h "
        "and ±0 at x != z with upstream y; D^AD w.r.t. every other coordinate ±0; depth "
        f"{N.depth(fmt, C.SHALLOW)} (the repaired atom: {N.depth(fmt)}); proved as a tree: the d-wide gate (step "
        "blocks, killers, T, the induction over the killer terms, the two layers that collapse them, K beside R), "
        "then the 1-D shallow atom's chain, output, transfer and backward claims")


def repaired(fmt):
    return tree(fmt), (f"every d <= {K.TERMS_MAX // 2}, every coordinate i < d: for all z, x in {xdesc(fmt)}^d, every "
                       "finite h != 0, every finite g != 0 and every finite y: out = ±0; D^AD w.r.t. x_i = g (bit for "
                       "bit) at x = z with upstream h and ±0 at x != z with upstream y; D^AD w.r.t. every other "
                       f"coordinate ±0; depth {N.depth(fmt)}; proved as a tree: the d-wide gate (step blocks, killers, "
                       "T, the induction over the killer terms, the two layers that collapse them), then the 1-D "
                       "atom's chain, output, transfer and backward claims")


def _formats(fmt):
    """Why the whole-block rows are not stated in ``fmt`` (None where they are)."""
    if fmt.nbits > MAX_BITS:
        return f"the whole-block rows are stated in formats of at most {MAX_BITS} bits"
    return None


#: the dimensions of the whole-block rows (d = 3's three claims take longer than this
#: tree's whole row even in E3M2)
WHOLE_DIMS = (2,)


def _extra(fmt):
    return [] if _formats(fmt) else [("repaired", *claims(d, fmt)) for d in WHOLE_DIMS]


def profiled(fmt, sem):
    """Under a semantics profile: GA_0 and GA_1 for d = 2 as whole-block claims (the tree's
    statement is for every d; the row says d = 2), in formats of at most :data:`MAX_BITS`
    bits (as the whole-block rows)."""
    why = _formats(fmt)
    if why:
        raise InputError(why)
    return ([c for i in range(2) for c in block(2, i)(fmt, sem)[0]],
            _statement(fmt, 2) + " (under a profile: d = 2 only, one whole-block claim per coordinate)")


LEMMA = Lemma("gradient_atom_nd", "Lemma 3.5 for x in F^d (BRIEF §5; Theorem 3.1's X^d)",
              {"repaired": repaired, "shallow": shallow}, order=82, only=("repaired", "shallow"), extra=_extra,
              whole=profiled)
