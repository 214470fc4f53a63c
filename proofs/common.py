"""Shared pieces of the lemma statements: the domain X of Theorem 3.1 for ReLU (from
specs/theorems.py) and how ranges are written in a row's statement."""

import importlib

from fpsmt.proof.claims import Float

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
        def goal(s):
            net, P = build(s, s.z, C.REPAIRED)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            return [out[0].same(indicator(s, holds(s))), grad[0].eq(0)]
        c = forall(f"{name}.repaired", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
        return [c], (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x {sym} z] (1 or +0) "
                     "and D^AD(y) = ±0")
    return Lemma(name, "BRIEF §5.1 (point indicators of Lemma 3.4)", {"released": released, "repaired": repaired},
                 order=10 if kind == "ge" else 20, construction=True)



def step_claims(fmt):
    """The repaired step-indicator lemmas' claims (stages of every block built on them)."""
    from fpsmt.constructions import relu as C
    from fpsmt.proof.lemmas import load
    return [c for k in ("ge", "le") for c in load(f"step_indicator_{k}").claims(C.REPAIRED, fmt)]


def steps_and_top(fmt, name, top_net, cases, extra=None):
    """Stages for a repaired block that is the step pair then ``top_net`` (layers 6… as a
    network on (1[x >= z], 1[x <= z])): the two step-indicator lemmas, and one claim that
    runs ``top_net`` on the three cases x = z (1, 1), x < z (0, 1), x > z (1, 0), with
    every finite upstream y: ``cases[(ge, le)](s, out)`` gives the goals on the outputs;
    the gradients into the indicators must be finite (the step lemmas then give ±0).
    ``extra``: more variables of the top claim (name -> domain)."""
    from fpsmt.proof.claims import forall

    def goal(s):
        net, P = top_net(s)
        res = []
        for ins, want in cases.items():
            out, grad = s.run(net, list(ins), [s.y], params=P)
            res += list(want(s, out)) + [g.is_finite() for g in grad]
        return res
    return step_claims(fmt) + [forall(f"{name}.top", {**(extra or {}), "y": Float(finite=True)}, goal=goal)]
