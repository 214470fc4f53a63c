"""Shared parts of the lemmas of the ``rectifying`` construction family
(fpsmt.constructions.rectifying: GELU, Swish, ELU, and any activation that passes its
requirements).  Every claim is built while the family's construction is active, so σ is
that construction's activation; X = [−M_σ, M_σ] and H_σ are its theorem constants."""

from fpsmt.proof.claims import Float
from fpsmt.proofs.sat_common import Family


FAMILY = Family("fpsmt.constructions.rectifying")
activation, theorem, X, H, xdesc, formats = (FAMILY.activation, FAMILY.theorem, FAMILY.X, FAMILY.H, FAMILY.xdesc,
                                             FAMILY.formats)


def step_lemma(kind):
    from fpsmt.constructions import rectifying as RC
    from fpsmt.proof.claims import forall
    from fpsmt.proof.lemmas import Lemma
    sym = ">=" if kind == "ge" else "<="

    def repaired(fmt):
        k = RC.block_constants(fmt)

        def goal(s):
            net, P = RC.step(s, s.z, kind)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            on = s.x >= s.z if kind == "ge" else s.x <= s.z
            return [on.implies(out[0].same(k.I)), (~on).implies(k.is_dead(out[0])), grad[0].eq(0)]
        c = forall(f"rect_step_indicator_{kind}", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
        return [c], (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = {k.I} if x {sym} z, "
                     f"{k.dead_text} otherwise, and D^AD(y) = ±0")
    return Lemma(f"rect_step_indicator_{kind}", "Theorem 3.1's indicators for a rectifying σ (GELU, Swish, ELU; reconstructed)",
                 {"repaired": repaired}, formats=formats, order=610 if kind == "ge" else 620, family="rectifying",
                 construction=True)
