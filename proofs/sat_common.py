"""Shared parts of the lemmas of the ``saturating`` construction family
(fpsmt.constructions.saturating: tanh, and any activation that passes its requirements).
Every claim is built while the family's construction is active, so σ is that
construction's activation; the domain X = [−M_σ, M_σ] and the bound H_σ are its theorem
constants (specs/theorems.py for the six of the paper)."""

from fractions import Fraction

from fpsmt.proof.claims import Float


class Family:
    """The parts a construction family's lemmas share, for its module of builders
    (``blocks``: its ``hidden()`` names the active σ, its ``block_constants(fmt)`` says why
    the blocks do not exist in a format)."""

    def __init__(self, module_name):
        self.module_name = module_name

    @property
    def blocks(self):
        import importlib
        return importlib.import_module(self.module_name)

    def activation(self):
        return self.blocks.hidden()

    def theorem(self, fmt):
        from fpsmt.constructions.registry import constructions
        return constructions()[self.activation()].constants(fmt)

    def X(self, **kw):
        """A float of X = [−M_σ, M_σ]."""
        return Float(range=(lambda f: f.hex(f.round(-self.theorem(f).M_sigma)),
                            lambda f: f.hex(f.round(self.theorem(f).M_sigma))), **kw)

    def H(self, fmt):
        return self.theorem(fmt).H_sigma

    def xdesc(self, fmt):
        from fpsmt.constructions.registry import show_bound
        return f"X = [-{show_bound(self.theorem(fmt).M_sigma)}, {show_bound(self.theorem(fmt).M_sigma)}]"

    def step_lemma(self, kind, prefix, title, order, family, conditions, says):
        """The step indicator's lemma (``kind`` "ge" or "le") of the family's ``step(s, z, kind)``:
        for all z, x of X and every finite upstream y, ``conditions(s, out, on)`` (``on`` the
        step's condition x >= z or x <= z) and D^AD(y) = ±0; ``says(fmt, sym)`` the statement's
        middle ("out = …")."""
        from fpsmt.proof.claims import forall
        from fpsmt.proof.lemmas import Lemma
        sym = ">=" if kind == "ge" else "<="
        name = f"{prefix}_step_indicator_{kind}"

        from fpsmt.constructions.relu import concrete
        from fpsmt.proofs.common import whole
        variables = {"z": self.X(), "x": self.X(), "y": Float(finite=True)}

        def one(s):
            net, P = self.blocks.step(s, s.z, kind)
            return net, P, [s.x], [s.y]

        def expect(s, out, grad):
            return list(conditions(s, out[0], s.x >= s.z if kind == "ge" else s.x <= s.z)) + [grad[0].eq(0)]

        def statement(fmt):
            return f"for all z, x in {self.xdesc(fmt)} and every finite upstream y: {says(fmt, sym)} and D^AD(y) = ±0"

        def repaired(fmt):
            def goal(s):
                net, P, xs, ys = one(s)
                out, grad = s.run(net, xs, ys, params=P)
                return expect(s, out, grad)
            return [forall(name, variables, goal=goal)], statement(fmt)
        return Lemma(name, title, {"repaired": repaired}, formats=self.formats, order=order, family=family,
                     construction=True,
                     whole=whole(name, variables, one, expect,
                                 lambda fmt: concrete(lambda s, z: self.blocks.step(s, z, kind), fmt, 0), statement))

    def row_others(self, fmt):
        """A Theorem 3.2 row's other points of X (patterns): ±ω (nearest to 0), 1 and X's
        least value −M_σ."""
        from fpsmt.proofs.theorem_3_2_relu import others_of
        from fpsmt.semantics.formats import parse_format
        return others_of(fmt, self.theorem(parse_format(fmt)).M_sigma)

    def formats(self, fmt):
        """Why the family's blocks do not exist in ``fmt`` (the requirement that fails), or None."""
        from fpsmt.errors import InputError
        try:
            self.blocks.block_constants(fmt)
        except InputError as e:
            return str(e)
        return None


FAMILY = Family("fpsmt.constructions.saturating")
activation, theorem, X, H, xdesc, formats = (FAMILY.activation, FAMILY.theorem, FAMILY.X, FAMILY.H, FAMILY.xdesc,
                                             FAMILY.formats)


def theorem_facts(s, net, P, trace, at, off):
    """What a family's Theorem 3.1 join (proofs/family_theorem.py) takes of a gradient atom's
    run (``trace``): its two output terms sum to a zero; its first-layer terms of D^AD are
    one g and zeros where ``at`` (x = z with upstream h), all zeros where ``off`` (x ≠ z);
    every hidden value and gradient is finite where either holds (at x = z another upstream
    may overflow the chain: the theorem's network gives x's own atom h*(x))."""
    from fpsmt.proofs.common import finite_inside
    terms = s.input_terms(net, P, trace)
    t1, t2 = s.row_terms(net, len(net.layers) - 1, "forward", trace[1][-2], P)
    one = [t.is_zero() | t.same(s.g) for t in terms]
    alone = [~(~a.is_zero() & ~b.is_zero()) for i, a in enumerate(terms) for b in terms[i + 1:]]
    return ([(t1 + t2).is_zero()] + [at.implies(c) for c in one + alone] + [off.implies(t.is_zero()) for t in terms]
            + [(at | off).implies(c) for c in finite_inside(*trace[1:3])])


def gradient_claims(name, build, X, H, given=None):
    """A gradient atom's lemma as two claims, the weights computed from h and g in the claim:
    ``<name>.at_z`` over z, h, g (x = z, y = h: out = ±0 and D^AD(h) = g) and
    ``<name>.elsewhere`` over z, x ≠ z, h, g, y (out = ±0, D^AD(y) = ±0), both with
    :func:`theorem_facts`; ``build(s)`` is the atom's (network, params) on s.z, s.h, s.g;
    0 < |h| <= H, |y| <= H, g finite nonzero; ``given(s)``: a further hypothesis on z, h, g."""
    from fpsmt.proof.claims import forall

    def run(s, x, y):
        net, P = build(s)
        out, grad, trace = s.run(net, [x], [y], params=P, trace=True)
        return out, grad, (s, net, P, trace)

    def at_z(s):
        out, grad, t = run(s, s.z, s.h)
        return [out[0].is_zero(), grad[0].same(s.g)] + theorem_facts(*t, s.true(), s.false())

    def elsewhere(s):
        out, grad, t = run(s, s.x, s.y)
        return [out[0].is_zero(), grad[0].eq(0)] + theorem_facts(*t, s.false(), s.true())
    rng = (lambda f: f.hex(f.round(-H(f))), lambda f: f.hex(f.round(H(f))))
    hg = {"h": Float(range=rng, nonzero=True), "g": Float(finite=True, nonzero=True)}
    off = (lambda s: ~s.x.eq(s.z)) if given is None else (lambda s: ~s.x.eq(s.z) & given(s))
    return [forall(f"{name}.at_z", {"z": X(), **hg}, goal=at_z, given=given),
            forall(f"{name}.elsewhere", {"z": X(), "x": X(), **hg, "y": Float(range=rng)}, given=off, goal=elsewhere)]


def within(bound, **kw):
    """A float of [−b, b] for ``bound(fmt)`` = b (exact in the format)."""
    return Float(range=(lambda f: f.hex(f.round(-Fraction(bound(f)))), lambda f: f.hex(f.round(Fraction(bound(f))))),
                 **kw)


def gradient_whole(name, module, X, H, xdesc):
    """A family's gradient atom as one whole-block claim
    (:func:`fpsmt.proofs.common.family_gradient_whole`) over z, x in X, 0 < |h| <= H, every
    finite g != 0 and |y| <= H, at its depth ``module.depth``: the saturating and rectifying
    families' (their statements differ only in X, H and the depth)."""
    from fpsmt.constructions.registry import show_bound
    from fpsmt.proofs.common import family_gradient_whole
    return family_gradient_whole(
        name, module,
        {"z": X(), "x": X(), "h": within(H, nonzero=True), "g": Float(finite=True, nonzero=True), "y": within(H)},
        lambda fmt: (
            f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite g != 0 "
            "and every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0 (as "
            f"one claim about the whole block, depth {module.depth(fmt)})"
        ))


def indicator(s, cond):
    return s.where(cond, 1, 0)


def step_lemma(kind):
    return FAMILY.step_lemma(kind, "sat", "Theorem 3.1's indicators for a saturating σ (BRIEF §9, reconstructed)",
                             510 if kind == "ge" else 520, "saturating",
                             lambda s, out, on: [out.same(indicator(s, on))],
                             lambda fmt, sym: f"out = 1[x {sym} z] (1 or +0)")


def layer_slice(blocks, fmt, a, b, variant=None):
    """Layers a … b − 1 of the family's gradient atom at its lemmas' depth
    (``blocks.gradient_network``; ``variant``: its shallow one, at the shallow depth): a
    stage of the atom's proof tree, every neuron of those layers included (so the dense
    semantics' absent entries are in the claim)."""
    from fpsmt.semantics.network import Network
    kw = {} if variant is None else {"variant": variant}
    return Network(fmt, list(blocks.gradient_network(fmt, blocks.depth(fmt, **kw), **kw).layers[a:b]))


def chain_back_at_zero(name, hidden, where=None, what="a zero"):
    """The predicate a gradient-atom tree's chain layers state and its ``chain_grad``
    induction assumes: the path neuron's pre-activation is a zero (or ``where(s, pre)``,
    described as ``what``) and its gradient gR is (u ⊗ σ'(pre)) ⊗ c, the backward step as
    AD takes it, where that is not a zero (``hidden()`` names σ)."""
    from fpsmt.proof.tree import Pred

    def back(s):
        return (s.u * s.sigma_prime(hidden(), s.pre)) * s.c
    return Pred(f"{name}.chain_back", {"u": Float(finite=True), "pre": Float(), "c": Float(finite=True), "gR": Float()},
                lambda s: [s.pre.is_zero() if where is None else where(s, s.pre),
                           (~back(s).is_zero()).implies(s.gR.same(back(s)))],
                doc=f"pre {what} and gR = (u * sigma'(pre)) * c where that is nonzero")


def gate_off_stage(name, gate_run, killed, off, outputs):
    """A gradient-atom tree's gate at x != z (``off``), with the zero upstreams the killed
    chain gives: its outputs (named ``outputs``) satisfy ``killed``, D^AD(x) and every
    first-layer term are zeros, every hidden value and gradient finite.  ``gate_run(s, x,
    ups)`` -> (network, params, run trace) of the gate's layers."""
    from fpsmt.proof.tree import stage
    from fpsmt.proofs.common import finite_inside, zero

    ups = _zero_upstreams(outputs)

    def side(s):
        net, P, (_, grad, trace) = gate_run(s, s.x, [s[u] for u in ups])
        terms = s.input_terms(net, P, trace)
        return [grad[0].is_zero()] + [t.is_zero() for t in terms] + finite_inside(*trace[1:3])
    return stage(f"{name}.gate_off", {u: zero() for u in ups}, killed,
                 lambda s: dict(zip(outputs, gate_run(s, s.x, [s[u] for u in ups])[2][0])), off, side=side)


def _zero_upstreams(outputs):
    """The names o1, o2, … of the zero upstreams into a killed stage's ``outputs``."""
    return [f"o{i + 1}" for i in range(len(outputs))]


def chain_killed_node(name, killed, killed_run, layer, outputs, weight, chain_max, weight_pred=None, pre_finite=False):
    """A gradient-atom tree's chain layers at x != z, by induction (any number up to
    ``chain_max``): ``killed`` stays, and zero upstreams give zero gradients.  ``layer(s,
    ups)`` runs one chain layer (with trace) on the state ``outputs``; the step variable
    ``weight`` is the layer's weight in K (the predicate CHAIN_WEIGHT, or ``weight_pred``:
    a shallow chain's weight predicate); ``pre_finite``: every pre-activation finite too
    (:func:`fpsmt.proofs.common.finite_pre`)."""
    from fpsmt.proof.claims import Int
    from fpsmt.proof.tree import induction, stage
    from fpsmt.proofs.common import finite_inside, finite_pre, zero
    from fpsmt.proofs.multiplication_transfer import CHAIN_WEIGHT
    weight_pred = weight_pred or CHAIN_WEIGHT

    ups = _zero_upstreams(outputs)

    def side(s):
        _, grad, (pre, post, up) = layer(s, [s[u] for u in ups])
        return [g.is_zero() for g in grad] + finite_inside(post, up) + (finite_pre(pre) if pre_finite else [])
    return induction(
        f"{name}.chain_killed", killed_run, "i", 0, chain_max,
        stage(f"{name}.chain_killed.base", {"n": Int(0, chain_max)}, killed_run, lambda s: {"i": 0}, killed),
        lambda s: dict(zip(outputs, layer(s, [s[u] for u in ups])[0])), killed,
        step_vars={weight: Float(finite=True), **{u: zero() for u in ups}},
        step_given=lambda s: weight_pred.holds(s, c=s[weight]), step_side=side, done=lambda s: s.i.eq(s.n),
        doc="the chain layers at x != z", step_premise=[weight_pred])



def chain_grad_node(name, chain_back, hidden, chain_max):
    """A gradient-atom tree's ``chain_grad``: from the output down (the top with its output
    layer, then every chain layer; any number up to ``chain_max``), the gradient G along
    the path equals the transfer's partial product ``out``.  Each step is ``chain_back``
    (what the tree's top and chain stages prove of each layer), with instances of the
    tree's fact ``<name>.one`` (u ⊗ σ'(pre) = u where the path neuron is) and ReLU's
    ``cong``; ``hidden()`` names σ."""
    from fpsmt.proof.claims import Int
    from fpsmt.proof.tree import Pred, induction, stage
    from fpsmt.proofs.gradient_atom import GRAD_IS_P
    idx = Int(0, chain_max)
    run = Pred(f"{name}.chain_grad", {**GRAD_IS_P.variables, "i": idx, "n": idx},
               lambda s: [s.i <= s.n, GRAD_IS_P.holds(s)],
               doc="after i of the n layers from the output down: G = out, the product of the transfer's "
                   "first i + 1 weights")

    def cong_at(s):
        return s.instance("gradient_atom.cong", a=s.G * s.sigma_prime(hidden(), s.pre), b=s.out, c=s.c)
    return induction(
        f"{name}.chain_grad", run, "i", 0, chain_max,
        stage(f"{name}.chain_grad.base", {"G": Float(finite=True, nonzero=True), "n": idx}, run,
              lambda s: {"i": 0, "out": s.G}),
        lambda s: {"G": s.gR, "out": s.out * s.c}, GRAD_IS_P,
        step_vars={"c": Float(finite=True), "pre": Float(), "gR": Float()},
        step_given=lambda s: [chain_back.holds(s, u=s.G), (s.out * s.c).is_finite(), ~(s.out * s.c).is_zero(),
                              s.instance(f"{name}.one", u=s.G, pre=s.pre), cong_at(s)],
        step_assumes=(f"{name}.one", "gradient_atom.cong"),
        done=lambda s: s.i.eq(s.n), doc="the backward chain's product against the transfer's",
        step_premise=[chain_back])


def padded_gradient():
    """What a gradient atom's statement says of padding (``construct --depth``)."""
    from fpsmt.constructions.relu import PADDING_MAX
    return (f", or any depth up to {PADDING_MAX} more (chain weights 1 first, u ⊗ 1 = u: the chain inductions "
            "cover any number of chain layers)")


def value_padding_node(name, blocks, fmt, kw, point, values):
    """A value atom's padding (``construct --depth`` above the least depth): by induction
    over any number of carry layers up to :data:`fpsmt.constructions.relu.PADDING_MAX`, each
    the atom's own first carry layer (``blocks.value_atom`` one layer deeper than the
    theorem's depth ``blocks.depth``, ``kw`` the variant's; the atom at depth L has L − depth
    such layers between p and the carries at the theorem's depth: tests/test_family_depth.py
    compares them), the point predicate ``point`` (p as a function of x and z: 1 at x = z,
    ``values[1]`` elsewhere) is kept, and every finite upstream gives a finite gradient into
    p; every hidden value and gradient finite.  The step is decided in two cases, x = z and
    x != z (``values``: p's two values, for the doc)."""
    from fpsmt.semantics.network import Network
    cut = blocks.block_constants(fmt).step_depth + 1  # the layers up to the point indicator's p

    def pad_run(s, p, u):
        net, P = blocks.value_atom(s, s.z, s.const(0), depth=blocks.depth(s.fmt, **kw) + 1)
        return s.run(Network(s.fmt, net.layers[cut:cut + 1]), [p], [u], params=P, trace=True)
    from fpsmt.constructions.relu import PADDING_MAX
    from fpsmt.proof.claims import Int
    from fpsmt.proof.tree import Pred, induction, stage
    from fpsmt.proofs.common import finite_inside
    idx = Int(0, PADDING_MAX)
    run = Pred(f"{name}.padding.run", {**point.variables, "k": idx, "n": idx},
               lambda s: [s.k <= s.n, point.holds(s)],
               doc=f"after k of n padding carries, p is still {values[0]} at x = z and {values[1]} elsewhere")

    def side(s):
        _, grad, trace = pad_run(s, s.p, s.u)
        return [grad[0].is_finite()] + finite_inside(*trace[1:3])
    return induction(
        f"{name}.padding", run, "k", 0, PADDING_MAX,
        stage(f"{name}.padding.base", {"n": idx}, run, lambda s: {"k": 0}, point),
        lambda s: {"p": pad_run(s, s.p, s.u)[0][0]}, point,
        step_vars={"u": Float(finite=True)}, step_side=side, done=lambda s: s.k.eq(s.n),
        step_cases=(lambda s: s.x.eq(s.z), lambda s: ~s.x.eq(s.z)),
        doc="padding: any number of carries of p keep it, and a finite upstream gives a finite gradient")


def reaches_padding_node(name, reaches, step_out, chain_max, *, step_given=None, step_assumes=(),
                         step_uninterpreted=(), doc=""):
    """A gradient atom's padding (``construct --depth``) below its transfer: the chain layers
    of weight 1 (the logistic family's: network weight 4) that an atom deeper than its least
    depth has between the transfer's last weight and the gate, by induction over any number
    up to ``chain_max``: the transfer's guarantee ``reaches`` (over g and the backward
    product ``out``) is kept when out becomes ``step_out(s)`` (one such layer's backward
    step, as the chain's induction ``chain_grad`` takes it), so that the join with
    ``chain_grad`` (whose product runs over every chain layer) meets it at the padded
    product."""
    from fpsmt.proof.claims import Int
    from fpsmt.proof.tree import Pred, induction, stage
    idx = Int(0, chain_max)
    run = Pred(f"{name}.padding.run", {**reaches.variables, "k": idx, "n": idx},
               lambda s: [s.k <= s.n, reaches.holds(s)],
               doc="after k of the n padding layers below the transfer, the transfer's guarantee holds of the product")
    return induction(
        f"{name}.padding", run, "k", 0, chain_max,
        stage(f"{name}.padding.base", {"n": idx}, run, lambda s: {"k": 0}, reaches),
        lambda s: {"out": step_out(s)}, reaches, step_given=step_given, step_assumes=step_assumes,
        step_uninterpreted=step_uninterpreted, done=lambda s: s.k.eq(s.n),
        doc=doc or "padding: the layers of weight 1 below the transfer keep its guarantee")
