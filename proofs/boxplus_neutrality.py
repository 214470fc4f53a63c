"""⊞-neutrality (paper §3, the composition f = f2 ⊞ f1; BRIEF §5): joining networks side by
side and adding their outputs left to right in a fixed order changes neither the value nor
the gradient the theorem needs.

fpsmt.constructions.relu.boxplus puts every part's output terms into one output row, in the order
of the parts, bias −0; the theorem network puts the gradient atoms (f2) first, then the
zero-gradient atoms (f1).  At an input x of the domain:

* value: each f2 atom contributes w ⊗ R and (−1) ⊗ N, both ±0 except at its own point,
  where they are w and −w; each f1 atom contributes ±0 except at its point, v.  So the
  row is a left-to-right sum of zeros, at most one adjacent pair (w, −w) and then at most
  one value v, and must come out as v (a zero when v is a zero: see below);
* gradient: at layer 1 the gradient w.r.t. x is the left-to-right sum over all atoms'
  rows of (upstream ⊗ weight): ±0 for every atom but x's own gradient atom, which
  gives g (its lemma); so a sum of zeros and at most one nonzero g.

The floating-point part is the five step lemmas below (``zeros``, ``pair``, ``enter``,
``stay``, ``times``) and ``row``, a sum of the theorem's shape checked in one piece; the
induction over the number of terms: the running sum is a zero until the pair (``zeros``),
a zero after it (``pair``), v once v is added (``enter``) and v after every further zero
(``stay``), −0 bias included; gradient terms are zeros times finite weights (``times``).

Zeros: when the target value is a zero, the row is +0 or −0.  A network of this form
cannot give −0 at one point and a positive value at another: the output row's terms
are w_j ⊗ a_j with a_j >= +0 (ReLU), a positive value needs some w_j > 0, and that term
is +0 or positive everywhere, while a left-to-right sum with a +0 or positive term is
never −0.  So the theorem compares zeros as numbers (+0 = −0), as the paper's
statement does for values in F.  Both variants are the same lemma (⊞ is not
changed by the repair).
"""

from fpsmt.proof.claims import Float, forall
from fpsmt.proofs.common import zero as zero_or_negative_zero
from fpsmt.proof.lemmas import Lemma


def _claims(fmt):
    fin = Float(finite=True)
    nz = Float(finite=True, nonzero=True)
    zeros = forall("boxplus_neutrality.zeros", {"a": zero_or_negative_zero(), "b": zero_or_negative_zero()},
                   goal=lambda s: (s.a + s.b).is_zero())
    pair = forall("boxplus_neutrality.pair", {"a": zero_or_negative_zero(), "w": nz},
                  goal=lambda s: ((s.a + s.w) + (-s.w)).is_zero())
    enter = forall("boxplus_neutrality.enter", {"a": zero_or_negative_zero(), "v": fin},
                   goal=lambda s: [(~s.v.is_zero()).implies((s.a + s.v).same(s.v)),
                                   s.v.is_zero().implies((s.a + s.v).is_zero())])
    stay = forall("boxplus_neutrality.stay", {"v": nz, "b": zero_or_negative_zero()},
                  goal=lambda s: (s.v + s.b).same(s.v))
    times = forall("boxplus_neutrality.times", {"a": zero_or_negative_zero(), "w": fin},
                   goal=lambda s: (s.a * s.w).is_zero())

    def row_goal(s):
        r = ((((s.z1 + s.z2) + s.w) + (-s.w)) + s.z3) + s.v
        r = (r + s.z4) + s.const(-0.0)
        return [(~s.v.is_zero()).implies(r.same(s.v)), s.v.is_zero().implies(r.is_zero())]
    row = forall("boxplus_neutrality.row", {"z1": zero_or_negative_zero(), "z2": zero_or_negative_zero(), "z3": zero_or_negative_zero(), "z4": zero_or_negative_zero(), "w": nz,
                                            "v": fin}, goal=row_goal)
    return [zeros, pair, enter, stay, times, row]


def build(fmt):
    return _claims(fmt), ("for all zeros a, b (+0 or -0), every finite nonzero w and every finite v: a + b is a zero, "
                          "(a + w) + (-w) is a zero, a + v = v for v != 0 (a zero for v a zero), v + b = v for "
                          "v != 0, a * w is a zero for finite w; and (((((z1 + z2) + w) + (-w)) + z3) + v) + z4 + "
                          "(-0) = v (a zero when v is a zero)")


LEMMA = Lemma("boxplus_neutrality", "paper §3 (f = f2 ⊞ f1; BRIEF §5)", {"released": build, "repaired": build},
              order=90, construction=True)
