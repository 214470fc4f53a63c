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


#: the step indicators' guarantees, and the pair the blocks on top of them assume
STEP_GE = Pred("step_indicator.ge", {"z": X_DOM, "x": X_DOM, "ge": Float()},
               lambda s: s.ge.same(indicator(s, s.x >= s.z)), doc="ge = 1[x >= z] (1 or +0)")
STEP_LE = Pred("step_indicator.le", {"z": X_DOM, "x": X_DOM, "le": Float()},
               lambda s: s.le.same(indicator(s, s.x <= s.z)), doc="le = 1[x <= z] (1 or +0)")
STEP_PAIR = Pred("step_indicator.pair", {"z": X_DOM, "x": X_DOM, "ge": Float(), "le": Float()},
                 lambda s: [STEP_GE.holds(s), STEP_LE.holds(s)], doc="(ge, le) = (1[x >= z], 1[x <= z])")


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
    return Lemma(name, "BRIEF §5.1 (point indicators of Lemma 3.4)", {"released": released, "repaired": repaired},
                 order=10 if kind == "ge" else 20, construction=True)


def finite_inside(post, up):
    """Every hidden value and every gradient w.r.t. a hidden value of a traced run is
    finite: what makes this block's share of another block's absent terms a zero."""
    return [v.is_finite() for layer in post[:-1] for v in layer] + [g.is_finite() for layer in up[:-1] for g in layer]


def step_node(kind, fmt=None, beside=False):
    """The repaired step indicator as a stage: its output is the guarantee STEP_GE (STEP_LE),
    and D^AD = ±0 for every finite upstream y (a side condition).

    ``beside`` (with ``fmt``): the block as it runs beside other blocks in one dense network (the step
    pair, the gradient atom's gate): every absent term of its layers 2… is any ±0
    (forward and backward: :class:`fpsmt.semantics.network.Zeros`), and the side also
    states that each first-layer row's backward term g ⊗ ReLU'(pre) is a zero, so that
    the whole's sum over the rows that read x is a zero whatever the other blocks add, and
    that every hidden value and gradient is finite (so its share of the other blocks'
    absent terms is a zero)."""
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
            out += finite_inside(post, up)
        return out
    zeros = zero_variables(C.step_network(fmt, kind)) if beside else {}
    name = f"step_indicator_{kind}.{'beside' if beside else 'repaired'}"
    return stage(name, {"z": X_DOM, "x": X_DOM, "y": Float(finite=True), **zeros},
                 STEP_GE if kind == "ge" else STEP_LE, lambda s: {kind: run(s)[0][0]}, side=side)


def steps_and_top(fmt, name, top_net, cases, extra=None):
    """A repaired block that is the step pair then ``top_net`` (layers 6… as a network on
    (1[x >= z], 1[x <= z])), as a proof tree: the two step-indicator stages, a join from
    their guarantees to the pair (ge, le) = (1[x >= z], 1[x <= z]), and the top stage,
    which assumes that pair for symbolic z, x and runs ``top_net`` on it with every finite
    upstream y: ``cases[(ge, le)](s, out)`` gives the goals at x = z (1, 1), x < z (0, 1)
    and x > z (1, 0); the gradients into the indicators must be finite (the step stages
    then give D^AD = ±0).  The top stage's network is a slice of the block's (the same
    terms: tests/test_tree.py).  In layers 1–5 each row of a step block also adds the
    other block's absent entries, +0 ⊗ its values (and each column +0 ⊗ its gradients):
    the step stages are the blocks *beside* others, stated for every ±0 there (Zeros
    stand-ins), and the test finds each block's rows and columns term for term its stage
    network with the stand-ins set to the pair's own absent terms.  That those are zeros
    (the other block's values and gradients finite, layer by layer, as each stage states
    of its own) is argued, not a claim.  ``extra``: more variables of the top stage."""
    from fpsmt.proof.tree import join, sequence, stage
    extra = dict(extra or {})
    where = {(1, 1): lambda s: s.x.eq(s.z), (0, 1): lambda s: s.x < s.z, (1, 0): lambda s: s.x > s.z}
    out_pred = Pred(f"{name}.out", {"z": X_DOM, "x": X_DOM, "out": Float(), **extra},
                    lambda s: [where[k](s).implies(s.all(*want(s, [s.out]))) for k, want in cases.items()],
                    doc="the block's output in the three cases x = z, x < z, x > z")

    def run(s):
        net, P = top_net(s)
        return s.run(net, [s.ge, s.le], [s.y], params=P)
    top = stage(f"{name}.top", {**extra, "y": Float(finite=True)}, out_pred, lambda s: {"out": run(s)[0][0]},
                STEP_PAIR, side=lambda s: [g.is_finite() for g in run(s)[1]])
    pair = join(f"{name}.steps", [STEP_GE, STEP_LE], STEP_PAIR)
    return sequence(name, [step_node("ge", fmt, True), step_node("le", fmt, True), pair, top], kind="lemma")
