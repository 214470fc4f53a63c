"""Bitwuzla on its own floating-point layer (SymFPU) beside Bitwuzla on fpsmt's own
encoding of the floats into bit-vectors (``bitwuzla-bv``, fpsmt/proof/solve/bvfloat.py),
on the same SMT-LIB texts, side by side.

The claims: those of benchmarks/z3_tactic.py (the fixed suite's ∀ and ∃ claims, the
repaired step indicators as they run beside each other, their finiteness facts and the
step pair's layer chain) and, with --released, the released ReLU step indicators (the
float32 claims only Bitwuzla's own layer proves, in minutes).  Each text is decided by
each configuration in a process of its own, killed at --cap seconds (shown as "> cap");
bitwuzla-bv's figure includes its translation, whose share is printed beside it.  Prints
one table per format (formats Bitwuzla's layer takes: float16, float32, float64), the
totals and the ratio bitwuzla-bv / bitwuzla, and checks that the two never disagree.

    python benchmarks/bvfloat.py [--formats float16,float32] [--cap 120] [--only NAME,…] [--released]
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from z3_tactic import claims as base_claims, side_by_side  # noqa: E402

MODES = ("bitwuzla", "bitwuzla-bv")


def _decide(text, mode, out):
    from fpsmt.proof.solve.backends import run_bitwuzla
    from fpsmt.proof.solve.bvfloat import to_bitvectors
    t = time.perf_counter()
    translate = 0.0
    if mode == "bitwuzla-bv":
        text = to_bitvectors(text)
        translate = time.perf_counter() - t
    r = run_bitwuzla(text, {})[0]
    out.put((r, time.perf_counter() - t, translate))


def claims(fmt, args):
    from fpsmt.proof.lemmas import load
    cs = base_claims(fmt)
    if args.released:
        for name in ("step_indicator_ge", "step_indicator_le"):
            node, _ = load(name).build("released", fmt)  # one claim, or a tree of them
            cs += node.claims() if hasattr(node, "claims") else list(node)
    return cs


def main():
    side_by_side("Bitwuzla", MODES, claims, target=_decide, extra=("(translate)", "bitwuzla-bv"),
                 formats="float16,float32",
                 more_options=[("--released", "add the released ReLU step indicators")])


if __name__ == "__main__":
    main()
