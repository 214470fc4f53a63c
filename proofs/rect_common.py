"""Shared parts of the lemmas of the ``rectifying`` construction family
(fpsmt.constructions.rectifying: GELU, Swish, ELU, and any activation that passes its
requirements).  Every claim is built while the family's construction is active, so σ is
that construction's activation; X = [−M_σ, M_σ] and H_σ are its theorem constants."""

from fpsmt.proofs.sat_common import Family


FAMILY = Family("fpsmt.constructions.rectifying")
activation, theorem, X, H, xdesc, formats = (FAMILY.activation, FAMILY.theorem, FAMILY.X, FAMILY.H, FAMILY.xdesc,
                                             FAMILY.formats)


def I(s):
    """The identity threshold I = 2^a of the active σ, a float of the scope."""
    from fpsmt.constructions import rectifying as RC
    return s.int_pow2(RC.block_constants(s.fmt).a)


def dead(s, v):
    """v is σ's dead value δ (a zero of either sign, or −1)."""
    from fpsmt.constructions import rectifying as RC
    return RC.block_constants(s.fmt).is_dead(v)


def killer(s):
    """G, the value of a killer that is alive, a float of the scope."""
    from fpsmt.constructions import rectifying as RC
    return s.const(s.fmt.to_fraction(RC.block_constants(s.fmt).G))


def upstreams(state, R=True):
    """The names u_<n> of the upstream gradients into a stage's output neurons ``state``
    (R's too, or not)."""
    return [f"u_{n}" for n in state if R or n != "R"]


def step_lemma(kind):
    from fpsmt.constructions import rectifying as RC

    def conditions(s, out, on):
        k = RC.block_constants(s.fmt)
        return [on.implies(out.same(k.I)), (~on).implies(k.is_dead(out))]

    def says(fmt, sym):
        k = RC.block_constants(fmt)
        return f"out = {k.I} if x {sym} z, {k.dead_text} otherwise,"
    return FAMILY.step_lemma(kind, "rect", "Theorem 3.1's indicators for a rectifying σ (GELU, Swish, ELU; reconstructed)",
                             610 if kind == "ge" else 620, "rectifying", conditions, says)
