"""Shared pieces of the lemma statements: the domain X of Theorem 3.1 for ReLU (from
specs/theorems.py) and how ranges are written in a row's statement."""

import importlib

from fpsmt.proof.claims import Float
from fpsmt.proof.tree import Pred

theorems = importlib.import_module("fpsmt.specs.theorems")


def x_ends(fmt):
    return theorems.constants("relu", fmt).domain()


def X(**kw):
    """A float of X = [−M_σ, M_σ] (ReLU: M_σ = 2^(e_max − 2))."""
    return Float(range=(lambda f: f.hex(x_ends(f)[0]), lambda f: f.hex(x_ends(f)[1])), **kw)


def zero():
    """+0 or −0 (a closed range [0, 0] under IEEE comparison)."""
    return Float(range=(0, 0))


def xdesc(fmt):
    return f"X = [-2^{fmt.e_max - 2}, 2^{fmt.e_max - 2}]"


def indicator(s, cond):
    """1 or +0."""
    return s.where(cond, 1, 0)


#: one domain object for X: predicates that share a variable must share its domain
X_DOM = X()


#: a finite upstream gradient
FINITE = Float(finite=True)


def nd_variables(d):
    """z0 … z{d−1} and x0 … x{d−1}, each in X: a point and an input of X^d."""
    return {**{f"z{j}": X_DOM for j in range(d)}, **{f"x{j}": X_DOM for j in range(d)}}

#: the step indicators' guarantees, and the pair the blocks on top of them assume
STEP_GE = Pred("step_indicator.ge", {"z": X_DOM, "x": X_DOM, "ge": Float()},
               lambda s: s.ge.same(indicator(s, s.x >= s.z)), doc="ge = 1[x >= z] (1 or +0)")
STEP_LE = Pred("step_indicator.le", {"z": X_DOM, "x": X_DOM, "le": Float()},
               lambda s: s.le.same(indicator(s, s.x <= s.z)), doc="le = 1[x <= z] (1 or +0)")
STEP_PAIR = Pred("step_indicator.pair", {"z": X_DOM, "x": X_DOM, "ge": Float(), "le": Float()},
                 lambda s: [STEP_GE.holds(s), STEP_LE.holds(s)], doc="(ge, le) = (1[x >= z], 1[x <= z])")


def finite_inside(post, up):
    """Every hidden value of a traced run, and every gradient w.r.t. a hidden value, is
    finite (``post``, ``up``: the trace's per-layer outputs and gradients; the last layer's
    are the stage's outputs and upstream, stated by its guarantee and hypotheses).  The
    atoms' stages state it of their own layers, so that every value and gradient of every
    atom is finite, layer by layer: the other atoms' absent terms +0 ⊗ (value or gradient)
    in the theorem's network are zeros (proofs/theorem_3_1_relu.py)."""
    return [v.is_finite() for layer in post[:-1] for v in layer] + [g.is_finite() for layer in up[:-1] for g in layer]


def finite_pre(pre):
    """Every pre-activation of a traced run is finite (``pre``: the trace's per-layer
    pre-activations, the last layer's included).  Under the paper's semantics σ(±∞) may be
    finite (GELU's, ELU's dead value), so a finite hidden value does not imply it; a stage
    that states it keeps ±∞ away from every σ — a framework's σ(−∞) may be NaN."""
    return [p.is_finite() for layer in pre for p in layer]


def step_lemma(kind):
    """The step-indicator lemma for 1[x >= z] (kind "ge") or 1[x <= z] ("le")."""
    from fpsmt.constructions import relu as C
    from fpsmt.proof.claims import forall
    from fpsmt.proof.lemmas import Lemma
    build = C.step_ge if kind == "ge" else C.step_le
    name, sym = f"step_indicator_{kind}", (">=" if kind == "ge" else "<=")

    def holds(s):
        return s.x >= s.z if kind == "ge" else s.x <= s.z

    def released(fmt):
        def goal(s):
            net, P = build(s, s.z, C.RELEASED)
            out, _ = s.run(net, [s.x], params=P)
            return out[0].same(indicator(s, holds(s)))
        # every (z, x) pair of a 16-bit format is enumerated (minutes); no solver decides
        # the released 1[x <= z] of bfloat16 within 600 s.  Wider formats go to the solvers.
        c = forall(f"{name}.released", {"z": X(nonzero=True), "x": X()}, goal=goal, enumerate=True)
        return [c], f"for all z in {xdesc(fmt)} with z != 0 and all x in X: out = 1[x {sym} z] (1 or +0)"

    def repaired(fmt):
        return step_node(kind), (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x {sym} z] "
                                 "(1 or +0) and D^AD(y) = ±0")
    def one(s):
        net, P = build(s, s.z, C.REPAIRED)
        return net, P, [s.x], [s.y]
    block = whole(name, {"z": X(), "x": X(), "y": FINITE}, one,
                  lambda s, out, grad: [out[0].same(indicator(s, holds(s))), grad[0].eq(0)],
                  lambda fmt: C.step_network(fmt, kind),
                  lambda fmt: f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x {sym} z] (1 or +0) "
                              "and D^AD(y) = ±0")
    return Lemma(name, "BRIEF §5.1 (point indicators of Lemma 3.4)", {"released": released, "repaired": repaired},
                 order=10 if kind == "ge" else 20, construction=True, whole=block)


def step_node(kind, fmt=None, beside=False):
    """The repaired step indicator as a stage: its output is the guarantee STEP_GE (STEP_LE),
    and D^AD = ±0 for every finite upstream y (a side condition).

    ``beside`` (with ``fmt``): the block as it runs beside other blocks in one dense network (the step
    pair, the gradient atom's gate): every absent term of its layers 2… is any ±0
    (forward and backward: :class:`fpsmt.semantics.network.Zeros`), and the side also
    states that each first-layer row's backward term g ⊗ ReLU'(pre) is a zero, so that
    the whole's sum over the rows that read x is a zero whatever the other blocks add.
    That its hidden values and gradients are finite (so that its share of the other
    blocks' absent terms is a zero) is stated layer by layer by its facts
    (:meth:`Beside.facts`), which the whole's layer chain uses (:func:`absent_chain`)."""
    from fpsmt.constructions import relu as C
    from fpsmt.proof.claims import zero_variables
    from fpsmt.proof.tree import stage
    build = C.step_ge if kind == "ge" else C.step_le

    def run(s):
        net, P = build(s, s.z, C.REPAIRED)
        return s.run(net, [s.x], [s.y], params=P, trace=True, zeros=s.zeros(net) if beside else None)

    def side(s):
        _, grad, (pre, post, up) = run(s)
        out = [grad[0].eq(0)]
        if beside:
            out += [(g * s.sigma_prime(C.hidden(), z)).is_zero() for g, z in zip(up[0], pre[0])]
        return out
    zeros = zero_variables(C.step_network(fmt, kind)) if beside else {}
    name = f"step_indicator_{kind}.{'beside' if beside else 'repaired'}"
    return stage(name, {"z": X_DOM, "x": X_DOM, "y": Float(finite=True), **zeros},
                 STEP_GE if kind == "ge" else STEP_LE, lambda s: {kind: run(s)[0][0]}, side=side)


class Beside:
    """A width-1 block inside a dense network of blocks side by side: ``claim``, the name
    of its PROVED beside claim (stated for every ±0 in place of each absent term: Zeros
    stand-ins ``zf{k}_0``, ``zb{k}_0``); ``prefix`` names its finiteness facts; ``net(fmt)``
    its network; ``row`` its row in every layer of the whole; ``params(s)`` its parameters;
    ``up`` the name of its upstream variable, ``whole_up`` the whole's variable that feeds
    it; ``terms(s)``: its claim's other variables as terms of the whole's claim (default
    z and x)."""

    def __init__(self, claim, prefix, net, row, params, up, whole_up, terms=None, up_domain=None):
        self.claim, self.prefix, self.net, self.row = claim, prefix, net, row
        self.params, self.up, self.whole_up = params, up, whole_up
        self.terms = terms or (lambda s: {"z": s.z, "x": s.x})
        #: the upstreams its ``grad{k}`` facts are stated for (default every finite one; a
        #: block that only ever gets a zero upstream — the shallow gate's step prefixes — a zero)
        self.up_domain = up_domain or FINITE

    def _run(self, s, fwd, bwd, y=None):
        net = self.net(s.fmt)
        zeros = {"forward": {k: [s[f"zf{k}_0"]] for k in fwd}, "backward": {k: [s[f"zb{k}_0"]] for k in bwd}}
        return net, s.run(net, [s.x], y, params=self.params(s), trace=True, zeros=zeros)

    def facts(self, fmt):
        """Per layer k >= 1 of the whole, what the other blocks' absent terms there need of
        this block, for every ±0 stand-in below (forward) or above (backward) it:
        ``value{k-1}`` its value at layer k − 1 finite; ``grad{k}`` its gradient into layer
        k's row (upstream ⊗ ReLU'(pre), the very term the whole's column sum reads)
        finite, for every finite upstream.  Fact nodes (the layer chain assumes them)."""
        from fpsmt.proof.claims import forall
        from fpsmt.proof.tree import fact
        L = len(self.net(fmt).layers)
        base = {"z": X_DOM, "x": X_DOM}
        out = []
        for k in range(1, L):
            zf = {f"zf{j}_0": zero() for j in range(1, k)}

            def value(s, k=k):
                _, (_, _, (_, post, _)) = self._run(s, range(1, k), ())
                return post[k - 1][0].is_finite()
            out.append(fact(forall(f"{self.prefix}.value{k - 1}", {**base, **zf}, goal=value,
                                   doc=f"{self.prefix}: its value at layer {k - 1} is finite, every absent term "
                                       f"below it any ±0")))
        for k in range(1, L):
            zs = {**{f"zf{j}_0": zero() for j in range(1, L)}, **{f"zb{j}_0": zero() for j in range(k + 1, L)}}

            def grad(s, k=k):
                net, (_, _, (pre, post, up)) = self._run(s, range(1, L), range(k + 1, L), [s[self.up]])
                act = net.layers[k].act
                g = s.sem.backward_formula(act)(s.A, s.sem.act_of(act), up[k][0].v, pre[k][0].v, post[k][0].v)
                return type(up[k][0])(s, g).is_finite()
            out.append(fact(forall(f"{self.prefix}.grad{k}", {**base, self.up: self.up_domain, **zs}, goal=grad,
                                   doc=f"{self.prefix}: its gradient into layer {k} is finite for every "
                                       f"{'finite' if self.up_domain is FINITE else 'zero'} upstream, every absent "
                                       f"term any ±0 (backward: above layer {k})")))
        return out


def absent_chain(name, fmt, variables, upstream, whole, blocks, guarantee, outputs, side=None, states=()):
    """Blocks beside blocks in one dense network, as claims: every absent entry's term of
    the whole (+0 ⊗ another block's value, forward; +0 ⊗ another block's gradient,
    backward) is a zero, and so the whole's outputs satisfy ``guarantee``.

    ``whole(s)`` -> (network, params, inputs) of the whole; ``upstream``: the names of its
    upstream variables (among ``variables``, each finite); ``blocks``: :class:`Beside`.
    Each block's beside claim holds for every ±0 in place of its absent terms, and its rows
    are term for term the whole's with the stand-ins set to the whole's absent terms
    (tests/test_tree.py).  The circle — those terms are zeros because the other blocks'
    values are finite, which holds where the stand-ins are zeros — is broken by the layer
    order.  ``absent.forward`` (for all z, x) instantiates each block's fact ``value{k-1}``,
    for every layer k >= 1, with the whole's absent terms below k: where those are zeros
    (the same claim, layer k − 1) the block's value at layer k − 1 is finite, so layer k's
    absent terms are zeros — the solver chains the layers.  ``absent.backward`` does the
    same from the top with ``grad{k}``, the forward terms all zeros.  ``whole``
    instantiates each beside claim with all the whole's absent terms (zeros now):
    ``guarantee`` of ``outputs(s, out, grad)`` and ``side(s, out, grad)``.  Returns the
    facts and the chain (its guarantee ``guarantee``) as one sequence node."""
    from fpsmt.proof.claims import forall
    from fpsmt.proof.tree import Node, sequence
    fwd_vars = {n: d for n, d in variables.items() if n not in upstream}

    def trace(s, back):
        net, P, xs = whole(s)
        out, grad, (_, _, _, absent) = s.run(net, xs, [s[n] for n in upstream] if back else None, params=P,
                                             trace=True, keep_absent=True)
        if any(absent[0]):
            raise ValueError(f"{name}: the whole has absent terms in its first layer")
        return out, grad, absent

    def zeros(s, d, layers):
        absent = trace(s, d == "b")[2]
        return [t.is_zero() for k in layers for t in absent[k][0 if d == "f" else 1].values()]

    def W_Z(absent, d, k, row):
        part = absent[k][0 if d == "f" else 1]
        if row not in part:
            raise ValueError(f"{name}: the whole has no absent term in row/column {row} of layer {k}")
        return part[row]

    def inst(s, absent, b, claim, fwd, bwd, y=True):
        """Block ``b``'s claim at the whole's absent terms ``absent`` (one trace of the
        whole per claim) for the stand-ins of layers ``fwd`` / ``bwd``, +0 for the rest."""
        zs = {**{f"zf{j}_0": W_Z(absent, "f", j, b.row) for j in fwd},
              **{f"zb{j}_0": W_Z(absent, "b", j, b.row) for j in bwd}}
        terms = b.terms(s)
        if y:
            terms[b.up] = s[b.whole_up]
        return s.instance(claim, **terms, **zs)

    def instances(s, back, each):
        """``inst`` for every (layer, block) that ``each(k, b)`` names, the whole traced once."""
        absent = trace(s, back)[2]
        return [inst(s, absent, b, *each(k, b)) for k in range(1, L) for b in blocks]

    L = len(blocks[0].net(fmt).layers)
    facts = [f for b in blocks for f in b.facts(fmt)]
    fz = Pred(f"{name}.absent.forward", fwd_vars, lambda s: zeros(s, "f", range(1, L)),
              doc=f"the whole's forward absent terms (layers 1-{L - 1}) are zeros")
    bz = Pred(f"{name}.absent.backward", variables, lambda s: zeros(s, "b", range(1, L)),
              doc=f"the whole's backward absent terms (layers 1-{L - 1}) are zeros")
    doc_f = (f"{name}: for k = 1 … {L - 1}, each block's value at layer k − 1 is finite where the absent terms "
             "below it are zeros (its fact value{k-1}), so layer k's absent terms are zeros")
    cf = forall(fz.name, fwd_vars, assumes=tuple(f"{b.prefix}.value{k - 1}" for k in range(1, L) for b in blocks),
                given=lambda s: instances(s, False, lambda k, b: (f"{b.prefix}.value{k - 1}", range(1, k), (), False)),
                goal=lambda s: fz.holds(s), doc=doc_f)
    doc_b = (f"{name}: for k = {L - 1} … 1, each block's gradient into layer k is finite where the absent terms "
             "above it are zeros (its fact grad{k}), so the absent terms of layer k's columns are zeros")
    cb = forall(bz.name, variables, assumes=tuple(f"{b.prefix}.grad{k}" for k in range(1, L) for b in blocks),
                given=lambda s: [fz.holds(s)] + instances(
                    s, True, lambda k, b: (f"{b.prefix}.grad{k}", range(1, L), range(k + 1, L))),
                goal=lambda s: bz.holds(s), doc=doc_b)

    def goal(s):
        out, grad, _ = trace(s, True)
        return [guarantee.holds(s, **outputs(s, out, grad))] + ([] if side is None else list(side(s, out, grad)))
    doc = (f"{name}: with every absent term a zero, each block's beside claim holds of its rows in the whole: "
           f"{guarantee.doc or guarantee.name}")
    cw = forall(f"{name}.whole", variables, assumes=tuple(b.claim for b in blocks), doc=doc, goal=goal,
                given=lambda s: [fz.holds(s), bz.holds(s)]
                + [inst(s, trace(s, True)[2], b, b.claim, range(1, L), range(1, L)) for b in blocks])
    nodes = [Node("stage", cf.name, cf, doc=doc_f, uses={"guarantee": fz}),
             Node("stage", cb.name, cb, doc=doc_b, uses={"guarantee": bz, "hypothesis": fz}),
             Node("stage", cw.name, cw, doc=doc, uses={"guarantee": guarantee, "hypothesis": bz, "premise": [fz],
                                                       **({"side": list(states)} if states else {})})]
    chain = sequence(f"{name}.absent", nodes, doc="the whole's absent terms are zeros, layer by layer")
    return Node("sequence", f"{name}.beside", None, facts + [chain], doc=absent_chain.__doc__.split("\n\n")[0],
                uses={"guarantee": guarantee})


def steps_and_top(fmt, name, top_net, cases, extra=None):
    """A repaired block that is the step pair then ``top_net`` (layers 6… as a network on
    (1[x >= z], 1[x <= z])), as a proof tree: the two step-indicator stages beside each
    other (every absent term any ±0), the pair as one dense network (:func:`pair_beside`:
    its finiteness facts, the layer chain that shows every absent term of the pair a zero,
    and the pair's outputs (ge, le) = (1[x >= z], 1[x <= z]) with D^AD a zero), and the top
    stage, which assumes that pair for symbolic z, x and runs ``top_net`` on it with every
    finite upstream y: ``cases[(ge, le)](s, out)`` gives the goals at x = z (1, 1), x < z
    (0, 1) and x > z (1, 0); the gradients into the indicators must be finite (the pair
    then gives D^AD = ±0).  The top stage's network is a slice of the block's and the pair
    is its first five layers (the same terms: tests/test_tree.py).  ``extra``: more
    variables of the top stage."""
    from fpsmt.proof.tree import sequence, stage
    extra = dict(extra or {})
    where = {(1, 1): lambda s: s.x.eq(s.z), (0, 1): lambda s: s.x < s.z, (1, 0): lambda s: s.x > s.z}
    out_pred = Pred(f"{name}.out", {"z": X_DOM, "x": X_DOM, "out": Float(), **extra},
                    lambda s: [where[k](s).implies(s.all(*want(s, [s.out]))) for k, want in cases.items()],
                    doc="the block's output in the three cases x = z, x < z, x > z")

    def run(s):
        net, P = top_net(s)
        return s.run(net, [s.ge, s.le], [s.y], params=P, trace=True)

    def side(s):
        _, grad, (_, post, up) = run(s)
        return [g.is_finite() for g in grad] + finite_inside(post, up)
    top = stage(f"{name}.top", {**extra, "y": Float(finite=True)}, out_pred, lambda s: {"out": run(s)[0][0]},
                STEP_PAIR, side=side)
    return sequence(name, [step_node("ge", fmt, True), step_node("le", fmt, True), pair_beside(fmt), top], kind="lemma")


def pair_beside(fmt, name="step_pair", upstream=FINITE):
    """The step pair as one dense network (C.step_pair: 1[x >= z] in row 0, 1[x <= z] in
    row 1 of every layer, upstream y and u): :func:`absent_chain` from the two beside
    claims to STEP_PAIR of its outputs, and its D^AD a zero for every finite y, u.
    (``upstream``: the domain of y and u — a test widens it to show the chain fail.)"""
    from fpsmt.constructions import relu as C

    def whole(s):
        net, P = C.step_pair(s, s.z)
        return net, P, [s.x]
    return absent_chain(name, fmt, {"z": X_DOM, "x": X_DOM, "y": upstream, "u": upstream}, ("y", "u"), whole,
                        [step_beside("ge", 0, "y"), step_beside("le", 1, "u")],
                        STEP_PAIR, lambda s, out, grad: {"ge": out[0], "le": out[1]},
                        side=lambda s, out, grad: [grad[0].is_zero()])


def step_beside(kind, row, up):
    """The repaired step block ``kind`` as a :class:`Beside` block in row ``row`` of a
    whole whose upstream into it is the whole's variable ``up``."""
    from fpsmt.constructions import relu as C
    return Beside(f"step_indicator_{kind}.beside", f"step_indicator_{kind}", lambda f: C.step_network(f, kind), row,
                  lambda s: C.step_params(s, kind, s.z if kind == "ge" else -s.z), "y", up)


def whole(name, variables, build, expect, structure, statement, doc="", enumerate=False):
    """A lemma's statement as one ∀ claim about its whole block, for any semantics profile
    (``fpsmt reproduce --semantics``): ``fmt, profile -> ([claim], statement)``.

    ``build(s)`` -> (network, params, inputs, upstreams) of one run; ``expect(s, out,
    grad)`` -> what the lemma states of it; ``structure(fmt)``: a network with the block's
    layers (its sparsity does not depend on the parameters), for the variables of the
    choices a profile leaves open (:func:`fpsmt.proof.claims.choice_variables`:
    ``order=any``, ``activation=ulp:K``).  Only :meth:`Scope.chosen_run` touches the
    network, so the claim means the lemma under the profile and nothing of the paper's
    semantics is built in: proof trees, whose joins are argued for the paper's semantics,
    are not used.  ``enumerate``: decide by enumeration where the space is small enough
    (:attr:`fpsmt.proof.claims.Claim.enumerate`)."""
    from fpsmt.proof.claims import choice_variables, forall
    from fpsmt.semantics.network import parse_semantics

    def make(fmt, sem):
        sem = parse_semantics(sem)
        shape = structure(fmt)
        extra = choice_variables(shape, sem)

        def goal(s):
            net, P, xs, ys = build(s)
            if [(L.n_out, L.n_in, list(L.rows), list(L.cols), L.activation) for L in net.layers] != \
                    [(L.n_out, L.n_in, list(L.rows), list(L.cols), L.activation) for L in shape.layers]:
                raise AssertionError(f"{name}: the block's layers differ from its structure")
            out, grad, hyp = s.chosen_run(net, xs, ys, params=P)
            lets(s, out, grad)
            want = expect(s, out, grad)
            return [hyp.implies(c) for c in (want if isinstance(want, (list, tuple)) else [want])]
        c = forall(f"{name}.whole", {**variables, **extra}, goal=goal, semantics=None if sem.is_paper else sem.spec,
                   doc=doc or f"{name} as one claim about its whole block", enumerate=enumerate)
        c.block = build
        return [c], statement(fmt)
    return make


def family_value_whole(name, module, variables, statement, zero_v=True):
    """A construction family's value atom (``module.value_atom`` at the theorem's depth,
    ``module.depth``) as one whole-block claim (:func:`whole`): out = v at x = z (bit for
    bit; with ``zero_v`` a zero v met by either zero), a zero elsewhere, D^AD(y) = ±0;
    ``variables`` z, x, v, y."""
    from fpsmt.constructions.relu import concrete

    def one(s):
        net, P = module.value_atom(s, s.z, s.v, depth=module.depth(s.fmt))
        return net, P, [s.x], [s.y]

    def expect(s, out, grad):
        at = s.x.eq(s.z)
        same = out[0].same(s.v) | (out[0].is_zero() & s.v.is_zero()) if zero_v else out[0].same(s.v)
        return [at.implies(same), (~at).implies(out[0].is_zero()), grad[0].eq(0)]
    return whole(name, variables, one, expect,
                 lambda fmt: concrete(lambda s, z, v: module.value_atom(s, z, v, depth=module.depth(s.fmt)), fmt, 0, 0),
                 statement)


def family_gradient_whole(name, module, variables, statement, reach=None):
    """A construction family's gradient atom (``module.gradient_atom`` at the theorem's
    depth) as one whole-block claim (:func:`whole`): out = ±0; D^AD(h) = g at x = z (the
    upstream h there), D^AD(y) = ±0 elsewhere; ``variables`` z, x, h, g, y; ``reach(s)``: the
    lemma's hypothesis on z and g, if it has one (the logistic family's: one atom reaches g
    at z)."""
    from fpsmt.constructions.relu import concrete

    def one(s):
        net, P = module.gradient_atom(s, s.z, s.h, s.g, depth=module.depth(s.fmt))
        return net, P, [s.x], [s.where(s.x.eq(s.z), s.h, s.y)]

    def expect(s, out, grad):
        at = s.x.eq(s.z)
        want = [out[0].is_zero(), at.implies(grad[0].same(s.g)), (~at).implies(grad[0].is_zero())]
        return want if reach is None else [reach(s).implies(w) for w in want]
    return whole(name, variables, one, expect,
                 lambda fmt: concrete(lambda s, z, h, g: module.gradient_atom(s, z, h, g, depth=module.depth(s.fmt)),
                                      fmt, 0, fmt.round(1), fmt.round(1)),
                 statement)


def lets(s, out, grad):
    """Name a whole-block run's output ``f`` and D^AD ``D`` (what a counterexample's report
    shows: ``counterexample hypothesis`` compares them with the paper's semantics')."""
    s.let("f", out[0])
    if grad:
        s.let("D", grad[0])
