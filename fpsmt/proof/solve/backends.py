"""The solver back ends, each given the same SMT-LIB 2 text rendered from Z3.

Each ``run_*`` function parses the text (declarations and assertions, no
``check-sat``), checks it and returns ``(status, model, reason)`` with ``status`` one
of ``"sat" | "unsat" | "unknown"`` and ``model`` mapping every declared bit-vector
variable to its value as an int.  These run inside worker processes (see
:mod:`fpsmt.proof.solve.pool`), so a hung solver can be killed.

What each back end accepts is detected, not assumed (:func:`accepts`): a tiny
formula over the format's sort is tried once per process.  cvc5 answers Float32 and
Float64 natively; other sorts need its experimental ``fp-exp`` option, whose answers
are marked experimental.  Bitwuzla's floating-point layer takes Float16, Float32 and
Float64 only.

``bitwuzla-bv`` is Bitwuzla's bit-vector engine on fpsmt's own encoding of the floats
(:mod:`fpsmt.proof.solve.bvfloat`): it takes every format with M >= 1, bfloat16 and the
8-bit formats included, and its floating-point semantics share no code with Z3's
``fpa2bv`` or with SymFPU (which cvc5 and Bitwuzla share).  Its version names a hash of
that encoding's source, so a stored answer is re-decided when the encoding changes.
"""

from __future__ import annotations

import importlib

BACKENDS = ("z3", "cvc5", "bitwuzla", "bitwuzla-bv")
_accepts_cache: dict = {}


def installed(name: str) -> bool:
    module = {"z3": "z3", "cvc5": "cvc5", "bitwuzla": "bitwuzla", "bitwuzla-bv": "bitwuzla"}[name]
    try:
        importlib.import_module(module)
        return True
    except ImportError:
        return False


def version(name: str) -> str:
    if name == "z3":
        import z3
        return z3.get_version_string()
    if name == "cvc5":
        import cvc5
        return cvc5.Solver(cvc5.TermManager()).getVersion()
    if name == "bitwuzla":
        import bitwuzla
        return bitwuzla.version()
    if name == "bitwuzla-bv":
        import hashlib
        import bitwuzla
        from fpsmt.proof.solve import bvfloat
        with open(bvfloat.__file__, "rb") as f:
            return f"{bitwuzla.version()}+bv.{hashlib.sha256(f.read()).hexdigest()[:12]}"
    raise ValueError(name)


#: Z3's tactic for the queries: floats to bit-vectors, bit-vectors to propositions, then
#: its SAT solver — a decision procedure for quantifier-free floats and bit-vectors
#: without uninterpreted functions.  On the layer-chain claims it answers in seconds where
#: Z3's default solver took minutes (benchmarks/z3_tactic.py times both side by side).
Z3_TACTIC = ("simplify", "fpa2bv", "simplify", "bit-blast", "sat")
#: the same with Ackermann's reduction of uninterpreted functions over bit-vectors first
#: (an uninterpreted σ, :attr:`fpsmt.proof.claims.Claim.uninterpreted` "act"): a claim whose
#: functions all take and give bit-vectors is then a bit-vector query
Z3_UF_TACTIC = ("simplify", "fpa2bv", "simplify", "ackermannize_bv", "simplify", "bit-blast", "sat")


def run_z3(text, variables, experimental=False, seed=0):
    """Z3 on the query: :data:`Z3_TACTIC`; where that does not apply (it answers unknown: an
    uninterpreted function is left after bit-blasting), :data:`Z3_UF_TACTIC`; then Z3's
    default solver."""
    import z3
    assertions = z3.parse_smt2_string(text)
    s = z3.Then(*Z3_TACTIC).solver()
    s.add(assertions)
    r = s.check()
    if r == z3.unknown:
        s = z3.Then(*Z3_UF_TACTIC).solver()
        s.add(assertions)
        r = s.check()
    if r == z3.unknown:
        s = z3.Solver()
        s.add(assertions)
        r = s.check()
    if r == z3.sat:
        m = s.model()
        return "sat", {n: m.eval(z3.BitVec(n, w), model_completion=True).as_long()
                       for n, w in variables.items()}, ""
    if r == z3.unsat:
        return "unsat", None, ""
    return "unknown", None, s.reason_unknown()


def run_cvc5(text, variables, experimental=False, seed=0):
    import cvc5
    tm = cvc5.TermManager()
    slv = cvc5.Solver(tm)
    slv.setOption("produce-models", "true")
    if experimental:
        slv.setOption("fp-exp", "true")
    sm = cvc5.SymbolManager(tm)
    p = cvc5.InputParser(slv, sm)
    p.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, "(set-logic ALL)\n" + text, "query")
    while True:
        cmd = p.nextCommand()
        if cmd.isNull():
            break
        cmd.invoke(slv, sm)
    r = slv.checkSat()
    if r.isSat():
        declared = {str(t): t for t in sm.getDeclaredTerms()}
        return "sat", {n: int(slv.getValue(declared[n]).getBitVectorValue(10)) if n in declared else 0
                       for n in variables}, ""
    if r.isUnsat():
        return "unsat", None, ""
    return "unknown", None, str(r.getUnknownExplanation())


def run_bitwuzla(text, variables, experimental=False, seed=0):
    import bitwuzla
    tm = bitwuzla.TermManager()
    opt = bitwuzla.Options()
    opt.set(bitwuzla.Option.PRODUCE_MODELS, True)
    p = bitwuzla.Parser(tm, opt)
    p.parse(text, True, False)
    bw = p.bitwuzla()
    r = bw.check_sat()
    if r == bitwuzla.Result.SAT:
        declared = {t.symbol(): t for t in p.get_declared_funs()}
        return "sat", {n: int(bw.get_value(declared[n]).value(10)) if n in declared else 0
                       for n in variables}, ""
    if r == bitwuzla.Result.UNSAT:
        return "unsat", None, ""
    return "unknown", None, "bitwuzla: unknown"


def run_bitwuzla_bv(text, variables, experimental=False, seed=0):
    """Bitwuzla on the query rewritten over bit-vectors by fpsmt's own floating-point
    encoding; a query the encoding does not take is *unknown*, with the reason."""
    from fpsmt.proof.solve.bvfloat import Unsupported, to_bitvectors
    try:
        bv = to_bitvectors(text)
    except Unsupported as e:
        return "unknown", None, f"bitwuzla-bv: the bit-vector encoding does not take {e}"
    return run_bitwuzla(bv, variables)


RUNNERS = {"z3": run_z3, "cvc5": run_cvc5, "bitwuzla": run_bitwuzla, "bitwuzla-bv": run_bitwuzla_bv}


def accepts(name: str, E: int, M: int):
    """``(accepted, experimental, why_not)`` for back end ``name`` on FloatingPoint E (M+1)."""
    key = (name, E, M)
    if key in _accepts_cache:
        return _accepts_cache[key]
    if not installed(name):
        out = (False, False, f"{name} is not installed")
    else:
        n = 1 + E + M
        one = f"(fp #b0 #b0{'1' * (E - 1)} #b{'0' * M})"
        x = f"((_ to_fp {E} {M + 1}) probe)"
        probe = (f"(declare-fun probe () (_ BitVec {n}))\n"
                 f"(assert (fp.isNormal {x}))\n"
                 f"(assert (fp.eq (fp.mul roundNearestTiesToEven {x} {one}) (fp.add roundNearestTiesToEven {x} "
                 f"(_ +zero {E} {M + 1}))))\n")
        out = None
        for experimental in ((False, True) if name == "cvc5" else (False,)):
            try:
                status, _, reason = RUNNERS[name](probe, {"probe": n}, experimental)
                if status == "sat":
                    out = (True, experimental, "")
                    break
                out = (False, False, f"{name} cannot decide a simple FloatingPoint {E} {M + 1} formula"
                       + (f" ({reason})" if reason else ""))
            except Exception as e:  # the back end refuses the sort
                why = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
                out = (False, False, f"{name} does not accept FloatingPoint {E} {M + 1}: {why}")
        if out is None:  # pragma: no cover
            out = (False, False, f"{name} does not accept FloatingPoint {E} {M + 1}")
    _accepts_cache[key] = out
    return out
