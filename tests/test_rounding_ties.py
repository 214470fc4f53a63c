"""Correct rounding at near-ties, checked against facts that need no evaluator.

For a subnormal x = k·ω (k ≥ 1), gelu(x) = x·Φ(x) and swish(x) = x·sigmoid(x) lie
strictly between x/2 and x/2 + ω/2 (Φ, sigmoid > 1/2, and the excess x·(Φ(x) − 1/2) <
x²/2 is far below ω/2 for subnormal x), so RNE gives ⌈k/2⌉·ω; for x = −k·ω the value lies
strictly between −x/2 − ω/2 … precisely in (−(k/2)·ω, −(k/2)·ω + ω/2), so RNE gives
−⌊k/2⌋·ω (−0 for k = 1).  An odd k puts x/2 on a tie: a value rounded twice, or an
enclosure's endpoint rounded to 53 bits first, lands on the tie and goes to even — the
bug that made bfloat16 gelu(0x0001) come out 0x0000."""

import pytest

from fpsmt.semantics.activations import get_activation
from fpsmt.semantics.activations.rounding import correctly_rounded
from fpsmt.semantics.formats import parse_format


@pytest.mark.parametrize("fmt", ["bfloat16", "float16", "float8_e4m3", "float8_e5m2"])
@pytest.mark.parametrize("name", ["gelu", "swish"])
def test_subnormal_halves_round_once(fmt, name):
    f = parse_format(fmt)
    act = get_activation(name).real
    for k in range(1, 1 << f.M):
        up = correctly_rounded(act, f, k, "value")
        down = correctly_rounded(act, f, k | f.sign_bit, "value")
        assert up == (k + 1) // 2, (fmt, name, f.hex(k), f.hex(up))
        assert down == (k // 2) | f.sign_bit, (fmt, name, f.hex(k | f.sign_bit), f.hex(down))


def test_a_wrong_endpoint_rounding_is_caught(monkeypatch):
    """The check above fails on the old behaviour: an enclosure's ends rounded to 53 bits first."""
    import mpmath

    from fpsmt.semantics.activations import rounding

    exact = rounding.round_dyadic

    def at_53_bits(fmt, man, exp):
        m, e = mpmath.mpf((man, exp)).man_exp  # mpmath rounds to its 53 bits: a second rounding
        return exact(fmt, int(m), int(e))
    monkeypatch.setattr(rounding, "round_dyadic", at_53_bits)
    f = parse_format("bfloat16")
    assert correctly_rounded(get_activation("gelu").real, f, 1, "value") == 0  # the tie, gone to even
