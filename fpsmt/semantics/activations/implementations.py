"""Activations as libraries compute them (``--semantics activation=numpy|torch``): tables.

The paper assumes σ_F correctly rounded.  Everyday implementations are not: NumPy's
formulas (``1 / (1 + exp(−x))`` and so on, :func:`fpsmt.semantics.activations.compare.np_formulas`)
evaluated in the format's own dtype (ml_dtypes for bfloat16 and the 8-bit formats, each
operation in float32 then rounded), and PyTorch's functions with its autograd derivative
(``torch.nn.functional``, upstream gradient 1), in bfloat16 and float16.  For a format of at
most 16 bits the implementation's σ and σ' at every pattern form two tables; the
activation then is a known function given by its table in every interpretation (the
executor and the exact reference look it up, Z3 encodes the table), so a network under
``activation=numpy`` means the same thing to all three.
"""

from __future__ import annotations

import numpy as np

from fpsmt.errors import InputError
from fpsmt.semantics.activations.kinds import Activation

IMPLEMENTATIONS = ("numpy", "torch")
TORCH_FORMATS = ("bfloat16", "float16")
TORCH_FUNCTIONS = {"relu": "relu", "elu": "elu", "selu": "selu", "gelu": "gelu", "swish": "silu", "mish": "mish",
                   "sigmoid": "sigmoid", "tanh": "tanh", "softplus": "softplus"}
_tables: dict = {}


def _name(act):
    real = getattr(act, "real", None)
    return real.name if real is not None else act.name


def supports(act, fmt, impl) -> str | None:
    """Why ``impl`` cannot give σ of ``act`` in ``fmt`` as tables, or None."""
    if fmt.nbits > 16:
        return f"activation={impl} is tabulated for formats of at most 16 bits, not {fmt.name}"
    name = _name(act)
    if impl == "numpy":
        from fpsmt.semantics.activations.compare import np_formulas
        f = np_formulas(name)
        if f is None or f[1] is None:
            return f"activation=numpy has no NumPy formula for {name}'s value and derivative"
        if fmt.np_dtype is None:
            return f"activation=numpy needs a NumPy dtype for {fmt.name}"
        return None
    if fmt.name not in TORCH_FORMATS:
        return f"activation=torch: PyTorch has {name} in {', '.join(TORCH_FORMATS)} (of at most 16 bits), not {fmt.name}"
    if name not in TORCH_FUNCTIONS:
        return f"activation=torch has no torch function for {name}"
    try:
        import torch  # noqa: F401
    except ImportError:
        return "activation=torch needs PyTorch, the optional extra: pip install 'fpsmt[torch]'"
    return None


def table(act, fmt, impl) -> np.ndarray:
    """(2^nbits, 2) patterns: σ and σ' of the implementation at every pattern of ``fmt``."""
    key = (_name(act), fmt.E, fmt.M, impl)
    if key in _tables:
        return _tables[key]
    why = supports(act, fmt, impl)
    if why:
        raise InputError(why)
    pats = np.arange(1 << fmt.nbits, dtype=np.uint64)
    xs = np.asarray([fmt.to_float(int(b)) if not fmt.is_nan(int(b)) else float("nan") for b in pats])
    if impl == "numpy":
        from fpsmt.semantics.activations.compare import np_formulas
        fv, fd = np_formulas(_name(act))
        xv = xs.astype(fmt.np_dtype)
        with np.errstate(all="ignore"):
            cols = [np.asarray(fv(xv)).astype(np.float64), np.asarray(fd(xv)).astype(np.float64)]
    else:
        import torch
        t = torch.tensor(xs, dtype=getattr(torch, fmt.name), requires_grad=True)
        y = getattr(torch.nn.functional, TORCH_FUNCTIONS[_name(act)])(t)
        y.backward(torch.ones_like(y))
        cols = [y.detach().double().numpy(), t.grad.double().numpy()]
    # each value is a float of the format already (computed in its dtype): from_float is exact
    out = np.asarray([[fmt.from_float(float(v)) for v in col] for col in cols], dtype=np.uint64).T.copy()
    _tables[key] = out
    return out


class Implemented(Activation):
    """σ and σ' of ``base`` as implementation ``impl`` computes them (module docstring)."""

    def __init__(self, base, impl):
        if impl not in IMPLEMENTATIONS:
            raise InputError(f"unknown activation implementation {impl!r} (known: correct, {', '.join(IMPLEMENTATIONS)})")
        self.base, self.impl = base, impl
        self.name = base.name
        self.real = getattr(base, "real", None)
        self._fns: dict = {}

    def value(self, A, z):
        return A.apply(self.function(A.fmt, "value"), z)

    def derivative(self, A, z):
        return A.apply(self.function(A.fmt, "derivative"), z)

    def function(self, fmt, which):
        from fpsmt.semantics.arith.functions import KnownFunction
        key = (fmt.E, fmt.M, which)
        fn = self._fns.get(key)
        if fn is None:
            col = 0 if which == "value" else 1
            tab = table(self.base, fmt, self.impl)[:, col]
            fn = KnownFunction(key=f"{_name(self.base)}@{self.impl}!{which}", fmt=fmt,
                               value_fn=lambda b: int(tab[int(b)]), table_fn=lambda: tab,
                               at_inf=(int(tab[fmt.inf_bits()]), int(tab[fmt.inf_bits(True)])))
            self._fns[key] = fn
        return fn

    def __repr__(self):
        return f"{self.name}@{self.impl}"
