"""Shared parts of the lemmas of the ``rectifying`` construction family
(fpsmt.constructions.rectifying: GELU, Swish, ELU, and any activation that passes its
requirements).  Every claim is built while the family's construction is active, so σ is
that construction's activation; X = [−M_σ, M_σ] and H_σ are its theorem constants."""

from fpsmt.proof.claims import Float
from fpsmt.proofs.sat_common import Family


FAMILY = Family("fpsmt.constructions.rectifying")
activation, theorem, X, H, xdesc, formats = (FAMILY.activation, FAMILY.theorem, FAMILY.X, FAMILY.H, FAMILY.xdesc,
                                             FAMILY.formats)


def is_dead(v, c):
    """v is σ's dead value δ of the blocks' constants ``c``: a zero (either sign), or −1."""
    return v.is_zero() if not c.dead else v.same(c.dead)


def dead_text(c):
    return "a zero" if not c.dead else str(c.dead)


def step_lemma(kind):
    from fpsmt.constructions import rectifying as RC
    from fpsmt.proof.claims import forall
    from fpsmt.proof.lemmas import Lemma
    sym = ">=" if kind == "ge" else "<="

    def repaired(fmt):
        c = RC.block_constants(fmt)
        I = c.I

        def goal(s):
            net, P = RC.step(s, s.z, kind)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            on = s.x >= s.z if kind == "ge" else s.x <= s.z
            return [on.implies(out[0].same(I)), (~on).implies(is_dead(out[0], c)), grad[0].eq(0)]
        c_ = forall(f"rect_step_indicator_{kind}", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
        return [c_], (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = {I} if x {sym} z, "
                      f"{dead_text(c)} otherwise, and D^AD(y) = ±0")
    return Lemma(f"rect_step_indicator_{kind}", "Theorem 3.1's indicators for a rectifying σ (GELU, Swish, ELU; reconstructed)",
                 {"repaired": repaired}, formats=formats, order=610 if kind == "ge" else 620, family="rectifying",
                 construction=True)
