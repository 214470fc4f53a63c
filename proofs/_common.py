"""Shared pieces of the lemma statements: the domain X of Theorem 3.1 for ReLU (from
specs/theorems.py) and how ranges are written in a row's statement."""

import importlib

from fpsmt.claims import Float

theorems = importlib.import_module("fpsmt.specs.theorems")


def x_ends(fmt):
    return theorems.constants("relu", fmt).domain()


def X(**kw):
    """A float of X = [−M_σ, M_σ] (ReLU: M_σ = 2^(e_max − 2))."""
    return Float(range=(lambda f: f.hex(x_ends(f)[0]), lambda f: f.hex(x_ends(f)[1])), **kw)


def xdesc(fmt):
    return f"X = [-2^{fmt.e_max - 2}, 2^{fmt.e_max - 2}]"


def indicator(s, cond):
    """1 or +0."""
    return s.where(cond, 1, 0)


def step_lemma(kind):
    """The step-indicator lemma for 1[x >= z] (kind "ge") or 1[x <= z] ("le")."""
    from fpsmt import construct as C
    from fpsmt.claims import forall
    from fpsmt.reproduce import Lemma
    build = C.step_ge if kind == "ge" else C.step_le
    name, sym = f"step_indicator_{kind}", (">=" if kind == "ge" else "<=")

    def holds(s):
        return s.x >= s.z if kind == "ge" else s.x <= s.z

    def released(fmt):
        def goal(s):
            net, P = build(s, s.z, C.RELEASED)
            out, _ = s.run(net, [s.x], params=P)
            return out[0].same(indicator(s, holds(s)))
        c = forall(f"{name}.released", {"z": X(nonzero=True), "x": X()}, goal=goal)
        return [c], f"for all z in {xdesc(fmt)} with z != 0 and all x in X: out = 1[x {sym} z] (1 or +0)"

    def repaired(fmt):
        def goal(s):
            net, P = build(s, s.z, C.REPAIRED)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            return [out[0].same(indicator(s, holds(s))), grad[0].eq(0)]
        c = forall(f"{name}.repaired", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
        return [c], (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x {sym} z] (1 or +0) "
                     "and D^AD(y) = ±0")
    return Lemma(name, "BRIEF §5.1 (point indicators of Lemma 3.4)", {"released": released, "repaired": repaired})

