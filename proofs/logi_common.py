"""Shared parts of the lemmas of the ``logistic`` construction family
(fpsmt.constructions.logistic: sigmoid).  Every claim is built while the family's
construction is active, so σ is that construction's activation; X = [−M_σ, M_σ] and H_σ
are its theorem constants."""

from fpsmt.proofs.sat_common import Family

FAMILY = Family("fpsmt.constructions.logistic")
activation, theorem, X, H, xdesc, formats = (FAMILY.activation, FAMILY.theorem, FAMILY.X, FAMILY.H, FAMILY.xdesc,
                                             FAMILY.formats)
TITLE = "(sigmoid; reconstructed)"


def step_lemma(kind):
    return FAMILY.step_lemma(kind, "logi", f"Theorem 3.1's indicators for a logistic σ {TITLE}",
                             710 if kind == "ge" else 720, "logistic",
                             lambda s, out, on: [on.implies(out.same(1)), (~on).implies(out.is_zero())],
                             lambda fmt, sym: f"out = 1 if x {sym} z, a zero otherwise,")
