"""The three-atom split of the ``logistic`` family's gradient targets
(fpsmt.constructions.logistic.split): where one gradient atom at z does not reach g (its
weight on x, w_x = m_g·2^k, times z overflows: |g| in the top binade, |z| near M_σ), three
atoms at z give a, a, b with a = g ⊗ RN(3/10) and b = g ⊖ (a ⊕ a).

Claim, for all z in X and every finite g != 0 that one atom does not reach at z:
(a ⊕ a) ⊕ b = g (bit for bit), a and b are nonzero, and one atom reaches each of them
(w_x(a) ⊗ z and w_x(b) ⊗ z finite) — so the gradient atom's lemma, whose hypothesis is
exactly that, holds of each of the three atoms, and the Theorem 3.1 join sums their
first-layer terms a, a, b (in that order, with zeros between) to g
(proofs/family_theorem.py, ``split_gradient_node``).  The claim computes the parts with the
builder's own code (the same function builds the networks).

A proof tree (as one claim, Bitwuzla took 600–2,615 s in float64 and no second back end
confirmed it: the claim multiplies w_x(g), w_x(a) and w_x(b), each a symbolic significand
times a power of two, by a symbolic z):

* ``logi_gradient_split.unreached`` — for all z in X and finite g != 0: where one atom does
  not reach g at z, |g| >= 2^(e_max − 1) (below, k = 0 and w_x = m_g < 2, and
  m_g ⊗ z is finite for |z| <= M_σ = 2^(e_max − 1));
* ``logi_gradient_split.parts`` — for every finite g with |g| >= 2^(e_max − 1), with no z:
  (a ⊕ a) ⊕ b = g, a and b nonzero, |w_x(a)| <= 7/2 and |w_x(b)| <= 7/2;
* ``logi_gradient_split.small_weight`` (a fact) — for all z in X and |w| <= 7/2: w ⊗ z is
  finite (3.5·2^(e_max − 1) < Ω for M >= 2);
* ``logi_gradient_split.join`` — the parts' guarantee and the fact's instances at
  w = w_x(a) and w = w_x(b) give the claim at every z of X.
"""

from fractions import Fraction

from fpsmt.constructions import logistic as LG
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, fact, join, sequence, stage
from fpsmt.proofs.logi_common import TITLE, X, formats, xdesc
from fpsmt.proofs.sat_common import within

NAME = "logi_gradient_split"
#: the fact's bound on a weight on x: 3.5·2^(e_max − 1) < Ω (M >= 2), so w ⊗ z is finite for |z| <= M_σ
SMALL = Fraction(7, 2)
X_DOM = X()
G = Float(finite=True, nonzero=True)


def _top(s):
    return s.int_pow2(s.fmt.e_max - 1)


def _parts(s):
    a, b = LG.split(s, s.g)
    wa, wb = LG.input_weight(s, a)[0], LG.input_weight(s, b)[0]
    return [((a + a) + b).same(s.g), ~a.is_zero(), ~b.is_zero(), abs(wa) <= SMALL, abs(wb) <= SMALL]


UNREACHED = Pred(f"{NAME}.unreached", {"z": X_DOM, "g": G}, lambda s: ~LG.reached(s, s.z, s.g),
                 doc="one gradient atom at z does not reach g (w_x ⊗ z not finite)")
TOP = Pred(f"{NAME}.top", {"g": G}, lambda s: abs(s.g) >= _top(s), doc="|g| >= 2^(e_max − 1)")
PARTS = Pred(f"{NAME}.parts", {"g": G}, _parts,
             doc="(a ⊕ a) ⊕ b = g, a and b nonzero, |w_x(a)| <= 7/2 and |w_x(b)| <= 7/2")
SPLIT = Pred(f"{NAME}.split", {"z": X_DOM, "g": G}, lambda s: LG.split_holds(s, s.z, s.g),
             doc="(a ⊕ a) ⊕ b = g, a and b nonzero and one atom at z reaches each")


def tree(fmt):
    unreached = stage(f"{NAME}.unreached", {}, TOP, lambda s: {}, UNREACHED)
    parts = stage(f"{NAME}.parts", {}, PARTS, lambda s: {}, TOP)
    small = fact(forall(f"{NAME}.small_weight", {"z": X(), "w": within(lambda f: SMALL)},
                        goal=lambda s: (s.w * s.z).is_finite(), doc=f"w ⊗ z is finite for z in X and |w| <= {SMALL}"))

    def facts(s):
        a, b = LG.split(s, s.g)
        return [s.instance(small.name, z=s.z, w=LG.input_weight(s, t)[0]) for t in (a, b)]
    link = join(f"{NAME}.join", [PARTS], SPLIT, facts=facts, assumes=(small.name,))
    return Node("lemma", NAME, None, [small, sequence(f"{NAME}.split", [unreached, parts, link])])


def repaired(fmt):
    return tree(fmt), (f"for all z in {xdesc(fmt)} and every finite g != 0 that one gradient atom does not reach "
                       "at z (w_x ⊗ z not finite): with a = g ⊗ RN(3/10) and b = g ⊖ (a ⊕ a), (a ⊕ a) ⊕ b = g, a "
                       "and b are nonzero and one atom at z reaches each; proved as a tree: such a g has |g| >= "
                       "2^(e_max − 1), where the parts sum to g, are nonzero and have weights on x of at most "
                       f"{SMALL}, and w ⊗ z is finite for |w| <= {SMALL} and z in X")


LEMMA = Lemma(NAME, f"the three-atom split of a gradient target for a logistic σ {TITLE}",
              {"repaired": repaired}, formats=formats, order=760, family="logistic", construction=True)
