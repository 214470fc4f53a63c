"""Network JSON and points CSV: the interchange formats.

Network JSON::

    {"format": "bfloat16" | {"E": 8, "M": 7},
     "layers": [{"weights": [[hex, …], …]                      (dense, out × in)
                            | {"shape": [out, in], "entries": [[i, j, hex], …]},  (sparse)
                 "bias": [hex, …], "activation": "relu" | "identity" | …}, …]}

Every number is a hex bit pattern of the format (``"0x3f80"``, any number of digits,
value below 2^bits).  Absent sparse entries are +0 with the dense semantics unchanged.

Points CSV (for ``fpsmt eval``): no header; each row holds the input's patterns
followed by the upstream gradient's (one per output).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, parse_format
from fpsmt.semantics.network import Layer, Network, Param


def _where(ctx, msg):
    return InputError(f"{ctx}: {msg}")


def network_from_json(doc, ctx="network") -> Network:
    if not isinstance(doc, dict) or "format" not in doc or "layers" not in doc:
        raise _where(ctx, 'expected an object with "format" and "layers"')
    fmt = parse_format(doc["format"])
    if not isinstance(doc["layers"], list) or not doc["layers"]:
        raise _where(ctx, '"layers" must be a non-empty list')
    layers = []
    for li, ld in enumerate(doc["layers"]):
        lctx = f"{ctx}: layer {li}"
        if not isinstance(ld, dict) or "weights" not in ld or "bias" not in ld:
            raise InputError(f'{lctx}: expected an object with "weights", "bias" and "activation"')
        extra = set(ld) - {"weights", "bias", "activation"}
        if extra:
            raise InputError(f"{lctx}: unknown key(s) {', '.join(sorted(extra))}")
        W = ld["weights"]

        def hexval(v, where):
            try:
                return fmt.parse_hex(v)
            except InputError as e:
                raise InputError(f"{lctx}: {where}: {e}") from None
        if isinstance(W, dict):
            if set(W) != {"shape", "entries"} or not (isinstance(W["shape"], list) and len(W["shape"]) == 2
                                                      and all(isinstance(n, int) and n >= 1 for n in W["shape"])):
                raise InputError(f'{lctx}: sparse weights need "shape": [out, in] (positive) and "entries"')
            n_out, n_in = W["shape"]
            rows, cols, ws = [], [], []
            for k, ent in enumerate(W["entries"]):
                if not (isinstance(ent, list) and len(ent) == 3 and isinstance(ent[0], int) and isinstance(ent[1], int)):
                    raise InputError(f"{lctx}: entry {k} must be [i, j, hex]")
                rows.append(ent[0])
                cols.append(ent[1])
                ws.append(hexval(ent[2], f"entry {k}"))
        elif isinstance(W, list) and W and all(isinstance(r, list) for r in W):
            n_out, n_in = len(W), len(W[0])
            if n_in == 0 or any(len(r) != n_in for r in W):
                raise InputError(f"{lctx}: dense weight rows must be non-empty and of equal length")
            rows = np.repeat(np.arange(n_out), n_in)
            cols = np.tile(np.arange(n_in), n_out)
            ws = [hexval(v, f"weight [{i}][{j}]") for i, r in enumerate(W) for j, v in enumerate(r)]
        else:
            raise InputError(f"{lctx}: weights must be dense rows or a sparse object")
        b = ld["bias"]
        if not isinstance(b, list):
            raise InputError(f"{lctx}: bias must be a list of hex patterns")
        bias = [hexval(v, f"bias [{i}]") for i, v in enumerate(b)]
        try:
            layers.append(Layer(n_out, n_in, rows, cols, ws, bias, ld.get("activation", "identity")))
        except InputError as e:
            raise InputError(f"{lctx}: {e}") from None
    try:
        return Network(fmt, layers)
    except InputError as e:
        raise _where(ctx, str(e)) from None


def load_network(path) -> Network:
    p = Path(path)
    try:
        doc = json.loads(p.read_text())
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not valid JSON ({e})") from None
    return network_from_json(doc, ctx=str(path))


def network_to_json(net: Network, sparse="auto") -> dict:
    fmt = net.fmt
    layers = []
    for layer in net.layers:
        if any(isinstance(w, Param) for w in list(layer.weights) + list(layer.bias)):
            raise InputError("a network with symbolic parameters cannot be saved; bind them first")
        nnz = len(layer.weights)
        use_sparse = sparse is True or (sparse == "auto" and 3 * nnz < layer.n_out * layer.n_in)
        if use_sparse:
            order = np.lexsort((layer.cols, layer.rows))
            W = {"shape": [layer.n_out, layer.n_in],
                 "entries": [[int(layer.rows[k]), int(layer.cols[k]), fmt.hex(layer.weights[k])] for k in order]}
        else:
            dense = [[fmt.hex(0)] * layer.n_in for _ in range(layer.n_out)]
            for i, j, w in zip(layer.rows.tolist(), layer.cols.tolist(), layer.weights):
                dense[i][j] = fmt.hex(w)
            W = dense
        layers.append({"weights": W, "bias": [fmt.hex(b) for b in layer.bias], "activation": layer.activation})
    return {"format": fmt.to_json(), "layers": layers}


def save_network(net: Network, path, sparse="auto") -> int:
    """Write the network JSON atomically; returns the file size in bytes."""
    text = json.dumps(network_to_json(net, sparse), separators=(",", ":"))
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(p)
    return len(text)


def load_points(path, fmt: Format, n_in: int, n_out: int):
    """Rows of (input patterns, upstream-gradient patterns) as two int arrays."""
    try:
        f = open(path, newline="")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    xs, ys = [], []
    with f:
        for ln, row in enumerate(csv.reader(f), start=1):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != n_in + n_out:
                raise InputError(f"{path}: line {ln}: expected {n_in + n_out} patterns "
                                 f"({n_in} inputs, {n_out} upstream gradients), got {len(row)}")
            try:
                vals = [fmt.parse_hex(c) for c in row]
            except InputError as e:
                raise InputError(f"{path}: line {ln}: {e}") from None
            xs.append(vals[:n_in])
            ys.append(vals[n_in:])
    if not xs:
        raise InputError(f"{path}: no points")
    dt = np.uint64 if fmt.nbits <= 64 else object
    return np.asarray(xs, dtype=dt), np.asarray(ys, dtype=dt)
