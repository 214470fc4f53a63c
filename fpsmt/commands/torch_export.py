"""The IR in PyTorch (optional extra ``fpsmt[torch]``): the same network, run and
differentiated by torch itself.

* :class:`ScalarNetwork` — a ``torch.nn.Module`` whose forward is written neuron by
  neuron as scalar operations in the paper's order: each row ``((w_1·a_1 + w_2·a_2) + …)
  + b`` left to right over its present entries, then ``torch.relu``; no matmul, no
  torch.sum.  Points are a batch dimension (every operation is elementwise over it), so
  one forward and one ``backward(h)`` give every point's value and D^AD.  The backward
  pass is torch.autograd's, as it is: no custom backward.  Two places where autograd's
  arithmetic is not the paper's D^AD, by construction of PyTorch: ``torch.relu``'s
  backward *selects* (``where(out > 0, g, 0)``) instead of computing ``g ⊗ σ'(z)``, so a
  dead ReLU gives +0 where the paper gives ±0 (or NaN for an infinite g); and a value
  read by several rows receives their gradients in the order autograd's engine
  accumulates them, not the left-to-right order over rows.
* :func:`linear_stack` — the same weights as a plain ``nn.Linear``/``nn.ReLU`` stack
  (dense matrices, torch's own reduction order): the reduction-order effect, measured.

Absent (sparse) entries are skipped in both directions: the dense product +0 ⊗ a of an
absent entry only decides the sign of a zero sum (or gives NaN if a is not finite),
which the comparison with targets does not look at (a zero target is met by either zero).
Formats: float64, float32, float16, bfloat16 (torch has no IEEE-like 8-bit arithmetic).
"""

from __future__ import annotations

import functools

import numpy as np

from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format

FORMATS = ("float64", "float32", "float16", "bfloat16")  # each is also the name of its torch dtype
DENSE_LIMIT = 3 << 30  # bytes of dense matrices :func:`linear_stack` is willing to allocate


def torch_module():
    try:
        import torch
    except ImportError:
        raise InputError("--torch needs PyTorch, the optional extra: pip install 'fpsmt[torch]'") from None
    return torch


def check_format(fmt: Format):
    if fmt.name not in FORMATS:
        raise InputError(f"PyTorch has no IEEE arithmetic for {fmt.name}; --torch takes "
                         f"{', '.join(FORMATS)}")


def _is_relu(name) -> bool:
    """Whether an activation is ReLU (under any name it was registered by)."""
    from fpsmt.semantics.activations import ReLU, get_activation
    return isinstance(get_activation(name), ReLU)


#: torch's own function for each activation it has (by fpsmt's name), and its module
TORCH_ACTIVATIONS = {"relu": ("relu", "ReLU"), "tanh": ("tanh", "Tanh"), "sigmoid": ("sigmoid", "Sigmoid"),
                     "elu": ("elu", "ELU"), "gelu": ("gelu", "GELU"), "swish": ("silu", "SiLU")}


def torch_activation(name):
    """(function, module class) of torch for σ, (None, None) for the identity; an activation
    torch does not have is an error naming it."""
    from fpsmt.semantics.activations import get_activation
    torch = torch_module()
    if name == "identity":
        return None, None
    sigma = get_activation(name)
    act = "relu" if _is_relu(name) else sigma.name
    own = getattr(getattr(sigma, "real", None), "torch", None)  # a user's file: NAME_torch(x, torch)
    if own is not None:
        fn = lambda x: own(x, torch)  # noqa: E731

        class UserActivation(torch.nn.Module):
            def forward(self, x):
                return fn(x)
        UserActivation.__name__ = act.split(":")[-1]
        return fn, UserActivation
    if act not in TORCH_ACTIVATIONS:
        raise InputError(f"the torch export knows {', '.join(sorted(TORCH_ACTIVATIONS))}, identity and a user's "
                         f"activation whose file defines NAME_torch(x, torch); not {name}")
    fn, mod = TORCH_ACTIVATIONS[act]
    return getattr(torch.nn.functional, fn), getattr(torch.nn, mod)


def to_tensor(fmt: Format, bits):
    torch = torch_module()
    b = np.asarray(bits, dtype=np.uint64).astype(f"uint{fmt.nbits}").view(f"int{fmt.nbits}")
    return torch.from_numpy(np.ascontiguousarray(b)).view(getattr(torch, fmt.name))


def to_bits(fmt: Format, t):
    torch = torch_module()
    b = t.detach().contiguous().view(getattr(torch, f"int{fmt.nbits}")).numpy().view(f"uint{fmt.nbits}")
    b = b.astype(np.uint64)
    nan = np.isnan(t.detach().to(torch.float64).numpy())
    return np.where(nan, np.uint64(fmt.nan_bits), b)


@functools.lru_cache(maxsize=None)
def rounded_tables(fmt: Format, name):
    """(σ_F, σ'_F) as bit patterns at every bit pattern of a format of at most 16 bits,
    indexed by the argument's pattern (fpsmt's correctly rounded values)."""
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.arith import concrete
    A = concrete(fmt)
    act = get_activation(name)
    X = A.const(np.arange(1 << fmt.nbits, dtype=np.uint64).astype(fmt.uint_dtype))
    return (np.asarray(A.to_bits(act.value(A, X)), dtype=np.uint64),
            np.asarray(A.to_bits(act.derivative(A, X)), dtype=np.uint64))


def rounded_activation(fmt: Format, name):
    """σ as a torch function that looks up the correctly rounded σ_F (forward) and computes
    g ⊗ σ'_F (backward, one torch multiplication: one rounding) from fpsmt's own values at
    every bit pattern: a format of at most 16 bits.  With it the scalar module differs from
    the executor only in torch's arithmetic and autograd, not in σ."""
    torch = torch_module()
    vtab, dtab = rounded_tables(fmt, name)

    def look(tab, x):
        return to_tensor(fmt, tab[to_bits(fmt, x).astype(np.int64)]).reshape(x.shape)

    class Rounded(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return look(vtab, x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * look(dtab, x)
    return Rounded.apply


def scalar_network(net, sem=None, rounded=False):
    """A :class:`ScalarNetwork` (the class is defined when torch is first needed); each
    row's terms are added in the summation order of ``sem`` (default: the paper's).
    ``rounded``: the hidden layers apply :func:`rounded_activation` instead of torch's σ."""
    from fpsmt.semantics.network import PAPER
    torch = torch_module()
    sem = sem or PAPER
    if sem.wide is not None:
        raise InputError("the torch export computes each operation in the network's format: "
                         f"order=wide:{sem.wide} is not exported")

    class ScalarNetwork(torch.nn.Module):
        """The network as scalar operations in the paper's order (module docstring)."""

        def __init__(self, net):
            super().__init__()
            check_format(net.fmt)
            self.fmt = net.fmt
            self.plan = []
            # torch's own σ per layer (or the correctly rounded one, looked up)
            self.fns = [rounded_activation(net.fmt, L.activation) if rounded and L.activation != "identity"
                        else torch_activation(L.activation)[0] for L in net.layers]
            for k, L in enumerate(net.layers):
                w = to_tensor(net.fmt, np.asarray(L.weights, dtype=np.uint64))
                b = to_tensor(net.fmt, np.asarray(L.bias, dtype=np.uint64))
                self.register_buffer(f"w{k}", w)
                self.register_buffer(f"b{k}", b)
                order = np.lexsort((L.cols, L.rows))
                rows = [[] for _ in range(L.n_out)]
                for e in order.tolist():
                    rows[int(L.rows[e])].append((int(L.cols[e]), e))
                plans = [sem.row_plan(L.n_in, [c for c, _ in r]) for r in rows]  # each row's ⊕ steps
                self.plan.append((rows, plans, L.activation))

        def forward(self, x):
            """x: (points,) → (points,) for a one-input, one-output network; (points, d) →
            (points,) for d inputs."""
            a = [x] if x.dim() == 1 else list(x.unbind(1))
            x = a[0]  # the shape of one column: what zeros and biases take
            for k, (rows, plans, act) in enumerate(self.plan):
                w, b = list(getattr(self, f"w{k}").unbind()), list(getattr(self, f"b{k}").unbind())
                out = []
                for i, (entries, plan) in enumerate(zip(rows, plans)):
                    slots = [w[e] * a[c] for c, e in entries]
                    for dst, p, q in plan.ops:
                        slots[dst] = slots[p] + slots[q]
                    S = slots[plan.root] if slots else None
                    if sem.fold_init != "first":
                        S = torch.zeros_like(x) if S is None else torch.zeros_like(x) + S
                    S = b[i].expand_as(x) if S is None else S + b[i]
                    out.append(self.fns[k](S) if self.fns[k] is not None else S)
                a = out
            return a[0]

    if net.n_out != 1:
        raise InputError("the torch export takes networks of one output")
    return ScalarNetwork(net)


def linear_stack(net):
    """The same weights as ``nn.Sequential(nn.Linear, nn.ReLU, …)`` (dense), or None with
    the reason when the dense matrices would exceed :data:`DENSE_LIMIT` bytes."""
    torch = torch_module()
    check_format(net.fmt)
    dtype = getattr(torch, net.fmt.name)
    need = sum(L.n_out * L.n_in for L in net.layers) * net.fmt.nbits // 8
    if need > DENSE_LIMIT:
        return None, f"dense weights would take {need / 2**30:.1f} GiB (limit {DENSE_LIMIT / 2**30:.0f} GiB)"
    mods = []
    for L in net.layers:
        lin = torch.nn.Linear(L.n_in, L.n_out, dtype=dtype)
        with torch.no_grad():
            W = torch.zeros(L.n_out, L.n_in, dtype=dtype)
            W[torch.from_numpy(L.rows), torch.from_numpy(L.cols)] = to_tensor(net.fmt, np.asarray(L.weights, np.uint64))
            lin.weight.copy_(W)
            lin.bias.copy_(to_tensor(net.fmt, np.asarray(L.bias, dtype=np.uint64)))
        lin.requires_grad_(False)
        mods.append(lin)
        cls = torch_activation(L.activation)[1]
        if cls is not None:
            mods.append(cls())
    return torch.nn.Sequential(*mods), None


def run(module, fmt: Format, xs, ys, column=False):
    """Value and autograd gradient (bit patterns) at inputs ``xs`` with upstream ``ys``."""
    x = to_tensor(fmt, xs).clone()
    y = to_tensor(fmt, ys)
    if column:
        x, y = x[:, None], y[:, None]
    x.requires_grad_(True)
    out = module(x)
    out.backward(y)
    return to_bits(fmt, out).ravel(), to_bits(fmt, x.grad).ravel()


def compare(fmt: Format, net, points, meets, progress=None):
    """Run the scalar module (and, in a format of at most 16 bits, the same with the correctly
    rounded σ) and the nn.Linear stack at every point with upstream h*;
    per implementation: how many points meet both targets, the first differences and the
    seconds it took.  ``progress(key, result)`` is called as each implementation ends."""
    import time
    torch = torch_module()
    xs = np.asarray([p[0] for p in points], dtype=np.uint64)
    ys = np.asarray([p[2] for p in points], dtype=np.uint64)
    report = {"torch": str(torch.__version__), "dtype": fmt.name}
    runs = [("scalar", scalar_network(net), False)]
    if net.fmt.nbits <= 16:  # the same with the correctly rounded σ: what σ alone accounts for
        runs.append(("scalar_rounded", scalar_network(net, rounded=True), False))
    stack, why = linear_stack(net)
    runs.append(("linear", stack, True))
    for key, module, column in runs:
        if module is None:
            report[key] = {"skipped": why}
            if progress is not None:
                progress(key, report[key])
            continue
        t0 = time.perf_counter()
        out, grad = run(module, fmt, xs, ys, column)
        seconds = round(time.perf_counter() - t0, 3)
        diff = []
        for p, o, d in zip(points, out.tolist(), grad.tolist()):
            if not (meets(fmt, o, p[1]) and meets(fmt, d, p[3])):
                diff.append({"x": fmt.hex(p[0]), "f": fmt.hex(o), "f_target": fmt.hex(p[1]),
                             "grad": fmt.hex(d), "g_target": fmt.hex(p[3]),
                             "value_differs": not meets(fmt, o, p[1]), "grad_differs": not meets(fmt, d, p[3]),
                             "why": "; ".join(f"{what}: {why_differs(fmt, got, want)}" for what, got, want in
                                              (("value", o, p[1]), ("D^AD", d, p[3])) if not meets(fmt, got, want))})
        report[key] = {"points": len(points), "bit_exact": len(points) - len(diff),
                       "value_differs": sum(r["value_differs"] for r in diff),
                       "grad_differs": sum(r["grad_differs"] for r in diff), "differences": diff[:20],
                       "seconds": seconds}
        if progress is not None:
            progress(key, report[key])
    return report


def why_differs(fmt: Format, got, want):
    """What kind of difference (got, target) is, from the two values alone (no cause: see
    :func:`sigma_mismatches` for one that can be named)."""
    if not fmt.is_finite(got):
        return "not finite"
    if fmt.is_zero(got):
        return "a zero instead of the target"

    def rank(b):  # position in the order of the finite floats (±0 one point)
        mag = b & ~fmt.sign_bit
        return -mag if fmt.is_negative(b) else mag
    return f"a different finite value, {abs(rank(got) - rank(want))} floats from the target"


def sigma_mismatches(fmt: Format, name, limit=3):
    """Where torch's σ and its autograd σ' differ from the correctly rounded σ_F and σ'_F
    (the construction's assumption, the paper's): every finite input of a format of at most
    16 bits, or None for wider formats.  Returns {"inputs", "value", "derivative" (how many
    inputs differ as numbers), "zero_signs" (a zero of the other sign, value or derivative),
    "examples": [(x, torch σ, σ_F, torch σ', σ'_F) as hex]}."""
    if fmt.nbits > 16:
        return None
    torch = torch_module()
    fn = torch_activation(name)[0]
    bits = np.arange(1 << fmt.nbits, dtype=np.uint64)
    bits = bits[[fmt.is_finite(int(b)) for b in bits]]
    x = to_tensor(fmt, bits).clone().requires_grad_(True)
    y = fn(x)
    y.backward(torch.ones_like(y))
    tv, td = to_bits(fmt, y), to_bits(fmt, x.grad)
    vtab, dtab = rounded_tables(fmt, name)
    idx = bits.astype(np.int64)
    fv, fd = vtab[idx], dtab[idx]
    mag = np.uint64(~fmt.sign_bit & ((1 << fmt.nbits) - 1))

    def zero_signs(a, b):  # differ, but only as +0 against −0: counted apart
        return (a != b) & ((a & mag) == 0) & ((b & mag) == 0)
    sv, sd = zero_signs(tv, fv), zero_signs(td, fd)
    bad_v, bad_d = (tv != fv) & ~sv, (td != fd) & ~sd
    signs = int(sv.sum() + sd.sum())
    out = {"inputs": int(len(bits)), "value": int(bad_v.sum()), "derivative": int(bad_d.sum()),
           "zero_signs": signs, "examples": []}
    for i in np.nonzero(bad_v | bad_d)[0][:limit].tolist():
        out["examples"].append(tuple(fmt.hex(int(v[i])) for v in (bits, tv, fv, td, fd)))
    return out
