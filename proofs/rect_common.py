"""Shared parts of the lemmas of the ``rectifying`` construction family
(fpsmt.constructions.rectifying: GELU, Swish, and any activation that passes its
requirements).  Every claim is built while the family's construction is active, so σ is
that construction's activation; X = [−M_σ, M_σ] and H_σ are its theorem constants."""

from fpsmt.proof.claims import Float


def activation():
    from fpsmt.constructions import rectifying as RC
    return RC.hidden()


def theorem(fmt):
    from fpsmt.constructions.registry import constructions
    return constructions()[activation()].constants(fmt)


def X(**kw):
    """A float of X = [−M_σ, M_σ]."""
    return Float(range=(lambda f: f.hex(f.round(-theorem(f).M_sigma)), lambda f: f.hex(f.round(theorem(f).M_sigma))),
                 **kw)


def H(fmt):
    return theorem(fmt).H_sigma


def xdesc(fmt):
    from fpsmt.constructions.registry import show_bound
    return f"X = [-{show_bound(theorem(fmt).M_sigma)}, {show_bound(theorem(fmt).M_sigma)}]"


def formats(fmt):
    """Why the family's blocks do not exist in ``fmt`` (what fails), or None."""
    from fpsmt.constructions import rectifying as RC
    from fpsmt.errors import InputError
    try:
        RC.block_constants(fmt)
    except InputError as e:
        return str(e)
    return None


def step_lemma(kind):
    from fpsmt.constructions import rectifying as RC
    from fpsmt.proof.claims import forall
    from fpsmt.proof.lemmas import Lemma
    sym = ">=" if kind == "ge" else "<="

    def repaired(fmt):
        I = RC.block_constants(fmt).I

        def goal(s):
            net, P = RC.step(s, s.z, kind)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            on = s.x >= s.z if kind == "ge" else s.x <= s.z
            return [on.implies(out[0].same(I)), (~on).implies(out[0].is_zero()), grad[0].eq(0)]
        c = forall(f"rect_step_indicator_{kind}", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
        return [c], (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = {I} if x {sym} z, "
                     "a zero otherwise, and D^AD(y) = ±0")
    return Lemma(f"rect_step_indicator_{kind}", "Theorem 3.1's indicators for a rectifying σ (GELU, Swish; reconstructed)",
                 {"repaired": repaired}, formats=formats, order=610 if kind == "ge" else 620, family="rectifying",
                 construction=True)
