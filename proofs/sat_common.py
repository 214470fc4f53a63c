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

        def repaired(fmt):
            def goal(s):
                net, P = self.blocks.step(s, s.z, kind)
                out, grad = s.run(net, [s.x], [s.y], params=P)
                return list(conditions(s, out[0], s.x >= s.z if kind == "ge" else s.x <= s.z)) + [grad[0].eq(0)]
            c = forall(name, {"z": self.X(), "x": self.X(), "y": Float(finite=True)}, goal=goal)
            return [c], f"for all z, x in {self.xdesc(fmt)} and every finite upstream y: {says(fmt, sym)} and D^AD(y) = ±0"
        return Lemma(name, title, {"repaired": repaired}, formats=self.formats, order=order, family=family,
                     construction=True)

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


def indicator(s, cond):
    return s.where(cond, 1, 0)


def step_lemma(kind):
    return FAMILY.step_lemma(kind, "sat", "Theorem 3.1's indicators for a saturating σ (BRIEF §9, reconstructed)",
                             510 if kind == "ge" else 520, "saturating",
                             lambda s, out, on: [out.same(indicator(s, on))],
                             lambda fmt, sym: f"out = 1[x {sym} z] (1 or +0)")


def layer_slice(blocks, fmt, a, b):
    """Layers a … b − 1 of the family's gradient atom at its lemmas' depth
    (``blocks.gradient_network``): a stage of the atom's proof tree, every neuron of those
    layers included (so the dense semantics' absent entries are in the claim)."""
    from fpsmt.semantics.network import Network
    return Network(fmt, list(blocks.gradient_network(fmt, blocks.depth(fmt)).layers[a:b]))


def chain_back_at_zero(name, hidden):
    """The predicate a gradient-atom tree's chain layers state and its ``chain_grad``
    induction assumes: the path neuron's pre-activation is a zero and its gradient gR is
    (u ⊗ σ'(pre)) ⊗ c, the backward step as AD takes it, where that is not a zero
    (``hidden()`` names σ)."""
    from fpsmt.proof.tree import Pred

    def back(s):
        return (s.u * s.sigma_prime(hidden(), s.pre)) * s.c
    return Pred(f"{name}.chain_back", {"u": Float(finite=True), "pre": Float(), "c": Float(finite=True), "gR": Float()},
                lambda s: [s.pre.is_zero(), (~back(s).is_zero()).implies(s.gR.same(back(s)))],
                doc="pre a zero and gR = (u * sigma'(pre)) * c where that is nonzero")

