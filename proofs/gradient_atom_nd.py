"""The gradient atom GA_i for a point z of F^d (Lemma 3.5 on d-dimensional inputs:
fpsmt.constructions.relu_nd.gradient_atom): value ±0 on X^d; D^AD w.r.t. x_i is g at
x = z with upstream h, and ±0 elsewhere for every finite upstream y; D^AD w.r.t. every
other coordinate is ±0 everywhere (h ≠ 0 finite, g ≠ 0 finite).

Stated with z and x symbolic in X^d, as one claim about the whole block per coordinate i,
for d = 2 (the lemma's row: i = 0, 1) and d = 3 (a second row: i = 0, 1, 2).  The block
is the 1-D gradient atom's chain with the killers of every coordinate in each row
(proofs/gradient_atom.py proves the 1-D atom as a tree); here each claim is decided whole,
which the solvers do in formats of at most 8 bits.  Wider formats need the atom's proof
tree with d coordinates' killers (not written): the lemma has no row there, and says so.
"""

from fpsmt.constructions import relu as C, relu_nd as N
from fpsmt.proof.claims import Float
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.common import FINITE, nd_variables, whole, xdesc
from fpsmt.proofs.zero_gradient_atom_nd import DIMS

#: the widest format whose whole-block claims the lemma states
MAX_BITS = 8


def _statement(fmt, d):
    return (f"d = {d}, every coordinate i < {d}: for all z, x in {xdesc(fmt)}^{d}, every finite h != 0, every finite "
            "g != 0 and every finite y: out = ±0; D^AD w.r.t. x_i = g (bit for bit) at x = z with upstream h and ±0 "
            "at x != z with upstream y; D^AD w.r.t. every other coordinate ±0")


def block(d, i):
    """GA_i for x in F^d as one whole-block claim (:func:`proofs.common.whole`)."""
    def one(s):
        net, P = N.gradient_atom(i)(s, *(s[f"z{j}"] for j in range(d)), s.h, s.g)
        return net, P, [s[f"x{j}"] for j in range(d)], [s.where(N.at_point(s, d), s.h, s.y)]

    def expect(s, out, grad):
        at = N.at_point(s, d)
        return [out[0].is_zero(), at.implies(grad[i].same(s.g)), (~at).implies(grad[i].is_zero())] + \
            [g.is_zero() for j, g in enumerate(grad) if j != i]
    variables = {**nd_variables(d), "h": Float(finite=True, nonzero=True), "g": Float(finite=True, nonzero=True),
                 "y": FINITE}
    return whole(f"gradient_atom_nd.d{d}.i{i}", variables, one, expect,
                 lambda fmt: C.concrete(N.gradient_atom(i), fmt, *([0] * d), fmt.round(1), fmt.round(1)),
                 lambda fmt: _statement(fmt, d), doc=f"GA_{i} for x in F^{d} as one claim")


def claims(d, fmt):
    return [c for i in range(d) for c in block(d, i)(fmt, None)[0]], _statement(fmt, d)


def _formats(fmt):
    if fmt.nbits > MAX_BITS:
        return (f"stated as whole-block claims in formats of at most {MAX_BITS} bits; {fmt.name} needs the atom's "
                "proof tree with every coordinate's killers (not written)")
    return None


LEMMA = Lemma("gradient_atom_nd", "Lemma 3.5 for x in F^d (BRIEF §5; Theorem 3.1's X^d)",
              {"repaired": lambda fmt: claims(DIMS[0], fmt)}, order=82, only=("repaired",), formats=_formats,
              extra=lambda fmt: [("repaired", *claims(d, fmt)) for d in DIMS[1:]])
