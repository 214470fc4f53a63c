"""``fpsmt activation compare``: correctly rounded σ_F, σ'_F against everyday implementations.

A report, not a test: for every input of a format of at most 16 bits (a random sample
otherwise) it counts where NumPy's formulas — evaluated in the format's own dtype
(ml_dtypes computes each operation in float32 and rounds), and in float64 rounded once
— differ from the correctly rounded values, and the worst distance in ulps.  PyTorch
(autograd) and JAX (jax.grad) rows appear when those packages are installed, for the
formats they have (float16, bfloat16, float32, float64).
"""

from __future__ import annotations

import math

import numpy as np


SQRT2, SQRT2PI = math.sqrt(2), math.sqrt(2 / math.pi)
SELU_A, SELU_L = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
_erf = np.vectorize(math.erf, otypes=[np.float64])


def np_formulas(name):
    """(σ, σ') as NumPy expressions in the dtype of their argument, or None."""
    def sig(x):
        return 1 / (1 + np.exp(-x))
    one = lambda x: np.ones_like(x)  # noqa: E731
    table = {
        "relu": (lambda x: np.maximum(x, 0), lambda x: (x > 0).astype(x.dtype)),
        "leaky_relu": (lambda x: np.where(x > 0, x, x * x.dtype.type(0.01)),
                       lambda x: np.where(x > 0, one(x), x.dtype.type(0.01) * one(x))),
        "elu": (lambda x: np.where(x > 0, x, np.expm1(x)), lambda x: np.where(x > 0, one(x), np.exp(x))),
        "selu": (lambda x: x.dtype.type(SELU_L) * np.where(x > 0, x, x.dtype.type(SELU_A) * np.expm1(x)),
                 lambda x: x.dtype.type(SELU_L) * np.where(x > 0, one(x), x.dtype.type(SELU_A) * np.exp(x))),
        "gelu": (lambda x: (x * (1 + _erf(x.astype(np.float64) / SQRT2).astype(x.dtype)) / 2),
                 lambda x: ((1 + _erf(x.astype(np.float64) / SQRT2).astype(x.dtype)) / 2
                            + x * np.exp(-x * x / 2) * x.dtype.type(1 / math.sqrt(2 * math.pi)))),
        "gelu_tanh": (lambda x: x * (1 + np.tanh(x.dtype.type(SQRT2PI) * (x + x.dtype.type(0.044715) * x * x * x))) / 2,
                      None),
        "swish": (lambda x: x * sig(x), lambda x: sig(x) * (1 + x * (1 - sig(x)))),
        "mish": (lambda x: x * np.tanh(np.log1p(np.exp(x))), None),
        "sigmoid": (sig, lambda x: sig(x) * (1 - sig(x))),
        "tanh": (np.tanh, lambda x: 1 - np.tanh(x) ** 2),
        "softplus": (lambda x: np.log1p(np.exp(x)), sig),
        "sin": (np.sin, np.cos),
        "cos": (np.cos, lambda x: -np.sin(x)),
    }
    return table.get(name)


def ordinal(fmt, bits):
    """Patterns to integers in value order (±0 both 0), so differences count ulps."""
    return np.array([-(b & ~fmt.sign_bit) if b & fmt.sign_bit else b for b in (int(v) for v in bits)],
                    dtype=object)


def _inputs(fmt, samples, rng):
    if fmt.nbits <= 16:
        pats = np.arange(1 << fmt.nbits, dtype=np.uint64)
    else:
        hi = np.uint64((1 << fmt.nbits) - 1)
        pats = rng.integers(0, hi, samples, dtype=np.uint64, endpoint=True)
    return np.array([b for b in pats.tolist() if not fmt.is_nan(b)], dtype=np.uint64)


def compare(act, fmt, samples=20000, progress=None):
    from fpsmt.semantics.arith import concrete
    rng = np.random.default_rng(0)
    xs = _inputs(fmt, samples, rng)
    A = concrete(fmt)
    if progress:
        progress(f"computing {len(xs)} correctly rounded values of {act.name} and its derivative in {fmt.name} ...")
    z = A.const(xs)
    ours = {w: np.array([int(v) for v in np.ravel(A.to_bits(A.apply(act.function(fmt, w), z)))], dtype=object)
            for w in ("value", "derivative")}
    rows = []
    formulas = np_formulas(act.real.name if act.real is not None else act.name)
    impls = []
    if formulas is not None and fmt.np_dtype is not None:
        impls.append((f"numpy ({fmt.np_dtype})", fmt.np_dtype))
    if formulas is not None and fmt.nbits <= 64:
        impls.append(("numpy float64, rounded once", np.dtype(np.float64)))
    for label, dt in impls:
        xv = np.asarray([fmt.to_float(int(b)) for b in xs], dtype=np.float64).astype(dt)
        for which, fn in zip(("value", "derivative"), formulas):
            if fn is None:
                rows.append({"implementation": label, "which": which, "inputs": len(xs), "mismatches": None,
                             "worst_ulps": None, "worst_input": None, "note": "no NumPy formula"})
                continue
            with np.errstate(all="ignore"):
                y = np.asarray(fn(xv))
            theirs = np.array([fmt.from_float(float(v)) for v in y.astype(np.float64)], dtype=object)
            rows.append(_row(fmt, label, which, xs, ours[which], theirs))
    for label, fn in _framework_impls(act, fmt):
        try:
            vals, ders = fn(np.asarray([fmt.to_float(int(b)) for b in xs]))
        except Exception as e:  # a framework without this activation or dtype
            rows.append({"implementation": label, "which": "value", "inputs": len(xs), "mismatches": None,
                         "worst_ulps": None, "worst_input": None, "note": f"{type(e).__name__}: {e}"})
            continue
        for which, y in (("value", vals), ("derivative", ders)):
            theirs = np.array([fmt.from_float(float(v)) for v in y], dtype=object)
            rows.append(_row(fmt, label, which, xs, ours[which], theirs))
    return rows


def _row(fmt, label, which, xs, ours, theirs):
    nan_o = np.array([fmt.is_nan(int(b)) for b in ours])
    nan_t = np.array([fmt.is_nan(int(b)) for b in theirs])
    diff = np.abs(ordinal(fmt, ours) - ordinal(fmt, theirs))
    same = (nan_o & nan_t) | ((diff == 0) & ~nan_o & ~nan_t)
    dist = np.where(nan_o | nan_t, -1, diff)
    worst = int(np.argmax(dist)) if len(dist) else 0
    wd = int(dist[worst]) if len(dist) else 0
    return {"implementation": label, "which": which, "inputs": int(len(xs)), "mismatches": int(np.sum(~same)),
            "worst_ulps": wd if wd >= 0 else "nan", "worst_input": fmt.hex(int(xs[worst])) if np.sum(~same) else None,
            "nan_mismatches": int(np.sum(nan_o != nan_t))}


def _framework_impls(act, fmt):
    """PyTorch / JAX rows, when installed and the format is one of their dtypes."""
    out = []
    name = act.real.name if act.real is not None else act.name
    try:
        import torch
    except ImportError:
        torch = None
    tdt = {"float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16"}.get(fmt.name)
    fn = {"relu": "relu", "elu": "elu", "selu": "selu", "gelu": "gelu", "swish": "silu", "mish": "mish",
          "sigmoid": "sigmoid", "tanh": "tanh", "softplus": "softplus", "leaky_relu": "leaky_relu"}.get(name)
    if torch is not None and tdt and fn:
        def run(x, torch=torch):
            t = torch.tensor(x, dtype=getattr(torch, tdt), requires_grad=True)
            y = getattr(torch.nn.functional, fn)(t)
            y.backward(torch.ones_like(y))
            return y.detach().double().numpy(), t.grad.double().numpy()
        out.append((f"torch {torch.__version__} ({tdt}, autograd)", run))
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    jfn = {"relu": "relu", "elu": "elu", "selu": "selu", "gelu": "gelu", "gelu_tanh": "gelu", "swish": "silu",
           "sigmoid": "sigmoid", "tanh": "tanh", "softplus": "softplus", "leaky_relu": "leaky_relu"}.get(name)
    if jax is not None and tdt and jfn:
        def run_jax(x, jax=jax, jnp=jnp):
            if tdt == "float64":
                jax.config.update("jax_enable_x64", True)
            f = getattr(jax.nn, jfn) if jfn != "tanh" else jnp.tanh
            if name in ("gelu", "gelu_tanh"):
                f = (lambda g, approx: (lambda t: g(t, approximate=approx)))(f, name == "gelu_tanh")
            t = jnp.asarray(x, dtype=getattr(jnp, tdt))
            y = f(t)
            g = jax.vmap(jax.grad(f))(t)
            return np.asarray(y, dtype=np.float64), np.asarray(g, dtype=np.float64)
        out.append((f"jax {jax.__version__} ({tdt}, grad)", run_jax))
    return out
