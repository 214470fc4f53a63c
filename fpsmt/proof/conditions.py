"""``fpsmt conditions``: Conditions 1–3 of an activation, per format, from a spec file.

A spec file defines functions ``C1``, ``C2``, ``C3`` (any of them) that take an activation
name and return a claim; the shipped one is ``specs/conditions.py``.  Each claim is
decided by the engine; a PROVED row carries the replayed witness and, for a disjunction,
the branch the witness takes.
"""

from __future__ import annotations

import time

import numpy as np

from fpsmt.semantics.activations import get_activation
from fpsmt.semantics.arith import concrete
from fpsmt.proof.claims import Claim
from fpsmt.proof.encoding import Encoding
from fpsmt.errors import InputError
from fpsmt.semantics.formats import parse_format
from fpsmt.proof.replay import truth

CONDITIONS = ("C1", "C2", "C3")
ALL_FORMATS = ("bfloat16", "float16", "float32", "float64", "float8_e5m2", "float8_e4m3", "float8_e3m4")


def load_spec(path=None):
    """{condition name: builder(activation) -> claim} from a spec file (default: the shipped one)."""
    if path is None:
        import importlib
        module = importlib.import_module("fpsmt.specs.conditions")
    else:
        from fpsmt.userfiles import import_file
        module = import_file(path, "spec")
    found = {c: getattr(module, c) for c in CONDITIONS if callable(getattr(module, c, None))}
    if not found:
        raise InputError(f"{path or 'the shipped spec'} defines no condition (functions C1, C2 or C3)")
    return found


def check_activation(act, fmt):
    """Refuse an activation that is ±inf or NaN at every finite input we can see."""
    if fmt.nbits <= 16:
        from fpsmt.semantics.activations.rounding import table
        vals = table(act.real, fmt)[:, 0] if act.real is not None else None
        pats = [b for b in range(1 << fmt.nbits) if fmt.is_finite(b)]
        ok = vals is None or any(fmt.is_finite(int(vals[b])) for b in pats)
    else:
        A = concrete(fmt)
        probe = [fmt.from_float(v) for v in (0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-3, -1e-3)]
        dt = np.uint64 if fmt.nbits <= 64 else object
        out = A.to_bits(act.value(A, A.const(np.asarray(probe, dtype=dt))))
        ok = any(fmt.is_finite(int(b)) for b in np.ravel(out))
    if not ok:
        raise InputError(f"activation {act.name} is not finite at any input of {fmt.name}: "
                         "the conditions do not apply")


def branch_of(claim, fmt, witness) -> str | None:
    """The first branch of a disjunctive claim that the witness satisfies (in the executor)."""
    if not claim.branches:
        return None
    filler = {n: 0 for n in claim.variables}
    enc = Encoding(claim, fmt, concrete(fmt), {**filler, **witness}, {})
    for name, fn in claim.branches.items():
        if truth(enc.part(fn)):
            return name
    return None


def _hints(act, fmt, cname, claim, rows):
    """Candidate witnesses: the same condition's witnesses in formats decided earlier in this
    run, where every value is exact in ``fmt``; then one found among landmark inputs."""
    from fpsmt.proof.crosscheck import suggest
    out = []
    for r in rows:
        if (r["activation"], r["condition"], r["status"]) != (act.name, cname, "PROVED") or r["format"] == fmt.name:
            continue
        src = parse_format(r["format"])
        h = {}
        for n, v in r["witness"].items():
            if isinstance(v, str):
                q = src.to_fraction(src.parse_hex(v))
                b = fmt.round(q, negative_zero=src.is_negative(src.parse_hex(v)))
                if not fmt.is_finite(b) or fmt.to_fraction(b) != q:
                    break
                h[n] = b
        else:
            out.append(h)
    if fmt.nbits > 16:  # narrow formats are solved fast without help
        out.extend(suggest(act, fmt, cname))
    return out


def run(engine, activations, formats, spec=None, progress=None):
    """Decide every condition of the spec for each activation and format; rows as dicts."""
    builders = load_spec(spec)
    rows = []
    total = len(activations) * len(formats) * len(builders)
    done = 0
    for a in activations:
        act = get_activation(a)
        for f in formats:
            fmt = parse_format(f)
            check_activation(act, fmt)
            for cname, build in builders.items():
                name = act.name if act.real is None or ".py:" not in str(a) else a
                if spec is None:
                    claim = build(name)
                else:  # a user's spec file: what its builders and claims raise names the file
                    from fpsmt.userfiles import user_code
                    with user_code(spec, f"{cname}({name!r})"):
                        claim = build(name)
                    if not isinstance(claim, Claim):
                        raise InputError(f"{spec}: {cname}({name!r}) returned {type(claim).__name__}, not a claim")
                    claim.origin = str(spec)
                done += 1
                if progress:
                    progress(f"[{done}/{total}] {cname} for {act.name} in {fmt.name} ...")
                t0 = time.perf_counter()
                hints = _hints(act, fmt, cname, claim, rows) if spec is None else []
                hint_seconds = time.perf_counter() - t0
                r = engine.prove(claim, fmt, {claim.name: claim}, hints=hints)
                rows.append(row(act, fmt, cname, r, r.seconds + (0 if r.cached else hint_seconds),
                                branch_of(claim, fmt, r.witness) if r.status == "PROVED" else None))
    return rows


def row(act, fmt, name, r, seconds, branch=None) -> dict:
    """One row of ``fpsmt conditions`` (a condition's or a construction requirement's) from
    the engine's result ``r``."""
    return {"activation": act.name, "format": fmt.name, "condition": name, "status": r.status, "branch": branch,
            "witness": r.witness_json(), "seconds": round(seconds, 3), "reason": r.reason, "solver": r.solver,
            "decimal": {k: (fmt.describe(v) if k in r.float_vars else v) for k, v in r.witness.items()}}
