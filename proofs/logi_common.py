"""Shared parts of the lemmas of the ``logistic`` construction family
(fpsmt.constructions.logistic: sigmoid).  Every claim is built while the family's
construction is active, so σ is that construction's activation; X = [−M_σ, M_σ] and H_σ
are its theorem constants."""

from fpsmt.proof.claims import Float
from fpsmt.proofs.sat_common import Family

FAMILY = Family("fpsmt.constructions.logistic")
activation, theorem, X, H, xdesc, formats = (FAMILY.activation, FAMILY.theorem, FAMILY.X, FAMILY.H, FAMILY.xdesc,
                                             FAMILY.formats)
TITLE = "(sigmoid; reconstructed)"


def step_lemma(kind):
    from fpsmt.constructions import logistic as LG
    from fpsmt.proof.claims import forall
    from fpsmt.proof.lemmas import Lemma
    sym = ">=" if kind == "ge" else "<="

    def repaired(fmt):
        def goal(s):
            net, P = LG.step(s, s.z, kind)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            on = s.x >= s.z if kind == "ge" else s.x <= s.z
            return [on.implies(out[0].same(1)), (~on).implies(out[0].is_zero()), grad[0].eq(0)]
        c = forall(f"logi_step_indicator_{kind}", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
        return [c], (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1 if x {sym} z, a zero "
                     "otherwise, and D^AD(y) = ±0")
    return Lemma(f"logi_step_indicator_{kind}", f"Theorem 3.1's indicators for a logistic σ {TITLE}",
                 {"repaired": repaired}, formats=formats, order=710 if kind == "ge" else 720, family="logistic",
                 construction=True)
