"""The value half of the theorem network (paper §3: f1, the ⊞ of zero-gradient atoms)
under any summation order — the follow-up paper's suggestion that value representation
survives arbitrary reduction orders (BRIEF §7).

f1's output row sums one term per zero-gradient atom: v at x's own atom and a zero at
every other (zero_gradient_atom: out = v at x = z, ±0 elsewhere, for every profile where
that lemma holds), then the bias −0.  The claim: such a row of SINGLES terms is v (a zero
when v is one) whatever the order — one whole-block claim per profile, the same claim
under the paper's semantics (its only variant, repaired: the blocks construct builds).
Unlike boxplus_neutrality's row, it has no gradient-atom pairs (w, −w), which an order
can split around v.
"""

from fpsmt.proof.claims import Float, Int, choice_variables, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.boxplus_neutrality import sum_row, zero_or
from fpsmt.proofs.common import lets, zero

#: terms of the row (order=any encodes every order of at most 8)
SINGLES = 8


def _terms(s):
    return [s.where(s.jv.eq(k), s.v, s[f"z{k}"]) for k in range(SINGLES)]


def whole(fmt, sem):
    from fpsmt.semantics.network import parse_semantics
    sem = parse_semantics(sem)
    net = sum_row(fmt, SINGLES)

    def goal(s):
        out, _, hyp = s.chosen_run(net, _terms(s))
        lets(s, out, None)
        has_v = s.jv >= 0
        return [hyp.implies(has_v.implies(zero_or(s, out[0], s.v))), hyp.implies((~has_v).implies(out[0].is_zero()))]
    c = forall("value_half.whole", {"v": Float(finite=True), "jv": Int(-1, SINGLES - 1),
                                    **{f"z{k}": zero() for k in range(SINGLES)}, **choice_variables(net, sem)},
               goal=goal, semantics=None if sem.is_paper else sem.spec,
               doc="f1's output row: v at most once, zeros elsewhere, bias −0")
    c.block = lambda s: (net, None, _terms(s), None)
    return [c], (f"f1's output row of {SINGLES} zero-gradient-atom terms (v at x's own atom, zeros elsewhere), "
                 "bias -0, is v (a zero when v is one) for every finite v")


def repaired(fmt):
    from fpsmt.semantics.network import PAPER
    return whole(fmt, PAPER)


LEMMA = Lemma("value_half", "paper §3 (f1); BRIEF §7 (arbitrary reduction orders)", {"repaired": repaired},
              order=95, construction=False, only=("repaired",), whole=whole)
