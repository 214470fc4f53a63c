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


def read_text(path, what: str) -> str:
    """A user's text file (UTF-8); a missing, unreadable or undecodable file, or a folder,
    is one error line."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} {path} is a folder, not a file")
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{what} {path} is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise InputError(f"{what} {path} cannot be read: {e.strerror or e}") from None


def network_from_json(doc, ctx="network") -> Network:
    """A network from parsed JSON; anything that is not the documented structure is one
    error line naming the place."""
    try:
        return _network_from_json(doc, ctx)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:  # a structure this reader did not name
        raise InputError(f"{ctx}: not a network of the documented form ({type(e).__name__}: {e})") from None


def _network_from_json(doc, ctx):
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
            if not isinstance(W["entries"], list):
                raise InputError(f'{lctx}: sparse "entries" must be a list of [i, j, hex]')
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
    try:
        doc = json.loads(read_text(path, "network file"))
    except (json.JSONDecodeError, RecursionError) as e:
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
    from fpsmt.commands.options import atomic_output
    with atomic_output(path) as pending:
        return write_network(net, pending.path, sparse)


def write_network(net: Network, path, sparse="auto") -> int:
    """Write the network JSON to ``path`` as it is (see :func:`save_network` for the atomic
    write); returns the file size in bytes."""
    text = json.dumps(network_to_json(net, sparse), separators=(",", ":"))
    Path(path).write_text(text, encoding="utf-8")
    return len(text)


def load_points(path, fmt: Format, n_in: int, n_out: int):
    """Rows of (input patterns, upstream-gradient patterns) as two int arrays."""
    text = read_text(path, "points file")
    xs, ys = [], []
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as e:
        raise InputError(f"{path}: not CSV ({e})") from None
    for ln, row in enumerate(rows, start=1):
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
