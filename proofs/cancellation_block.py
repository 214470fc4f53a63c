"""The cancellation (gradient suppression) block (BRIEF §5.1): s ⊕ a_p⁺ ⊖ a_p⁺ ⊕ … ⊖ a_emax⁺
with unit weights (a_k⁺ = (2^k)⁺ from constant neurons), ReLU, weight 2^(p − e_max).

For s ∈ {0, 1} the forward map keeps s while AD sees only the weights: gradient factor
2^(p − e_max).  For general s the map is 1[s >= 1/2] only below a format-dependent bound,
so the lemma must state its s-range.
released — the statement an unwary reading makes: every s >= 0 of X.
repaired — the same block with the range stated: 0 <= s <= 2^(e_max − p) (found by
enumeration in the 16- and 8-bit formats — bfloat16 first fails near 2.7e36, float16 at
63.53, e4m3 at 36, e5m2 overflows from 20480 — and proved here per format).  In formats
with e_max < p (e3m4) the block has no stage at all and cannot work.
The repaired construction does not use this block (fpsmt.construct docstring).
"""

from fractions import Fraction

from fpsmt import construct as C
from fpsmt.claims import Float, forall
from fpsmt.proofs._common import indicator, x_ends
from fpsmt.reproduce import Lemma


def _lemma(variant):
    def build(fmt):
        top = fmt.hex(x_ends(fmt)[1]) if variant == C.RELEASED else fmt.hex(fmt.round(Fraction(2) ** (fmt.e_max - fmt.M)))
        scale = fmt.hex(fmt.round(Fraction(2) ** (fmt.M - fmt.e_max)))

        def goal(s):
            net, _ = C.cancellation(s, 1)
            out, grad = s.run(net, [s.s], [s.y])
            on = s.s >= 0.5
            return [out[0].same(indicator(s, on)), on.implies(grad[0].same(s.y * s.const(scale))),
                    (~on).implies(grad[0].eq(0))]
        c = forall(f"cancellation_block.{variant}", {"s": Float(range=(0, top)), "y": Float(finite=True)}, goal=goal)
        hints = {}
        if variant == C.RELEASED and fmt.nbits <= 16:
            first = first_failure(fmt)
            if first is not None:
                hints = {c.name: [{"s": first, "y": fmt.round(1)}]}
        rng = "every s >= 0 of X" if variant == C.RELEASED else f"0 <= s <= 2^{fmt.e_max - fmt.M}"
        return [c], (f"one block, for {rng} and every finite y: out = 1[s >= 1/2] (1 or +0); D^AD(y) = "
                     f"y * 2^{fmt.M - fmt.e_max} (rounded) where s >= 1/2, ±0 elsewhere"), hints
    return build


def first_failure(fmt):
    """The least s >= 0 of X where one block's value is not 1[s >= 1/2] (executor, every s;
    formats of at most 16 bits), or None: the released row's hint."""
    import numpy as np

    from fpsmt.arith import concrete
    from fpsmt.claims import Scope
    from fpsmt.network import run
    A = concrete(fmt)
    net, _ = C.cancellation(Scope(A, fmt, {}), 1)
    top = x_ends(fmt)[1]
    ss = np.asarray([b for b in range(top + 1) if fmt.is_finite(b)], dtype=np.uint64)
    out = np.ravel(A.to_bits(run(A, net, A.const(ss)[:, None]).out))
    want = np.where([fmt.to_fraction(int(b)) >= Fraction(1, 2) for b in ss], fmt.round(1), 0)
    bad = np.nonzero(out != want)[0]
    return int(ss[bad[0]]) if len(bad) else None


LEMMA = Lemma("cancellation_block", "BRIEF §5.1 (gradient suppression by rounding)",
              {"released": _lemma(C.RELEASED), "repaired": _lemma(C.REPAIRED)})
