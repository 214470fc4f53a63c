"""Network JSON and points CSV: the interchange formats.

Network JSON::

    {"format": "bfloat16" | {"E": 8, "M": 7},
     "layers": [{"weights": [[hex, …], …]                      (dense, out × in)
                            | {"shape": [out, in], "entries": [[i, j, hex], …]},  (sparse)
                 "bias": [hex, …], "activation": "relu" | "identity" | …}, …]}

Every number is a hex bit pattern of the format (``"0x3f80"``, any number of digits,
value below 2^bits).  Absent sparse entries are +0 with the dense semantics unchanged.

Network safetensors (a path ending in ``.safetensors``): the same network in the
ecosystem's weight format.  The header's ``__metadata__`` holds ``"fpsmt": "network"``,
``"format"`` (the JSON form above) and ``"layers"`` (JSON: per layer its ``"shape"``
[out, in], ``"activation"`` and ``"weights"``: ``"dense"`` or ``"sparse"``).  Tensors:
``layers.K.weight`` ([out, in], every entry) for a dense layer, or compressed sparse rows
for a sparse one (``layers.K.indptr`` [out + 1], ``layers.K.indices`` and
``layers.K.values``, the indices in the narrowest of I16, I32, I64 that holds them: row i's entries are positions indptr[i] … indptr[i+1] − 1, in
increasing column); ``layers.K.bias`` [out].
Patterns are stored as their bits: in the format's own dtype where safetensors has it
(F64, F32, F16, BF16, F8_E5M2: ``safetensors.torch.load_file`` gives the weights as torch
tensors), else as the unsigned integer of the format's width (U8 … U64).

Points CSV (for ``fpsmt eval``): no header; each row holds the input's patterns
followed by the upstream gradient's (one per output).
"""

from __future__ import annotations

import contextlib
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


def kind_of(path) -> str:
    """``"safetensors"`` for a path ending in .safetensors, else ``"json"``."""
    return "safetensors" if str(path).lower().endswith(".safetensors") else "json"


def check_network_path(path, option="--out"):
    """A network file to write must end in .json or .safetensors (the extension chooses
    the format): anything else is one error line, before any work."""
    suffix = Path(str(path)).suffix.lower()
    if suffix not in (".json", ".safetensors"):
        raise InputError(f"{option} {path}: a network file ends in .json or .safetensors "
                         f"(the extension chooses the format), not {suffix or 'no extension'}")


def load_network(path, kind=None) -> Network:
    """A network file: safetensors or JSON by ``kind`` (default: by the path's extension)."""
    if (kind or kind_of(path)) == "safetensors":
        return load_safetensors(path)
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
    """Write the network atomically, safetensors or JSON by the path's extension; returns
    the file size in bytes."""
    from fpsmt.commands.options import atomic_output
    with atomic_output(path) as pending:
        return write_network(net, pending.path, sparse, kind=kind_of(path))


@contextlib.contextmanager
def pending_network(net: Network, out_path):
    """Write ``net`` to a pending file for ``out_path`` (safetensors or JSON by its
    extension) and read it back: yields (the :class:`PendingOutput`, the size in bytes, the
    network as written), so that what is checked is the file; the file is renamed to
    ``out_path`` when the block ends unless it was discarded."""
    from fpsmt.commands.options import atomic_output
    kind = kind_of(out_path)
    with atomic_output(out_path) as pending:
        size = write_network(net, pending.path, kind=kind)
        yield pending, size, load_network(pending.path, kind=kind)


def write_network(net: Network, path, sparse="auto", kind=None) -> int:
    """Write the network to ``path`` as it is (see :func:`save_network` for the atomic
    write), safetensors or JSON by ``kind`` (default: by the path's extension); returns the
    file size in bytes.  ``sparse`` applies to JSON."""
    if (kind or kind_of(path)) == "safetensors":
        return write_safetensors(net, path)
    size = 0
    with open(path, "w", encoding="utf-8") as fh:  # layer by layer: one layer's text in memory at a time
        for k in range(len(net.layers)):
            doc = network_to_json(Network(net.fmt, net.layers[k:k + 1]), sparse)
            head = '{"format":' + json.dumps(doc["format"]) + ',"layers":[' if k == 0 else ","
            text = head + json.dumps(doc["layers"][0], separators=(",", ":"))
            fh.write(text)
            size += len(text)
        fh.write("]}")
    return size + 2


# ------------------------------------------------------------------ safetensors
_NATIVE = {(11, 52): ("F64", np.float64), (8, 23): ("F32", np.float32), (5, 10): ("F16", np.float16),
           (8, 7): ("BF16", "bfloat16"), (5, 2): ("F8_E5M2", "float8_e5m2")}  # IEEE-like in both
_UNSIGNED = {8: "U8", 16: "U16", 32: "U32", 64: "U64"}
_INDEX = {"I16": np.dtype("<i2"), "I32": np.dtype("<i4"), "I64": np.dtype("<i8")}


def _narrow(a) -> np.ndarray:
    """Indices in the narrowest signed integer (I16, I32, I64) that holds them."""
    top = int(a.max()) if len(a) else 0
    dt = np.int16 if top < 2**15 else np.int32 if top < 2**31 else np.int64
    return np.ascontiguousarray(a, dtype=dt)


def _carrier(fmt: Format):
    """(safetensors dtype, numpy dtype to write, numpy uint dtype of the bits)."""
    bits = fmt.uint_dtype
    if bits == np.dtype(object):
        raise InputError(f"a {fmt.name} network ({fmt.nbits}-bit patterns) cannot be written as safetensors, "
                         f"whose integers hold at most 64 bits; write JSON")
    if (fmt.E, fmt.M) in _NATIVE:
        name, dt = _NATIVE[(fmt.E, fmt.M)]
        if isinstance(dt, str):
            import ml_dtypes
            dt = getattr(ml_dtypes, dt)
        return name, np.dtype(dt), bits
    return _UNSIGNED[bits.itemsize * 8], bits, bits


def write_safetensors(net: Network, path) -> int:
    """Write the network as safetensors to ``path`` as it is; returns the file size."""
    from safetensors.numpy import save_file
    fmt = net.fmt
    _, dt, bits = _carrier(fmt)

    def patterns(vals):
        return np.ascontiguousarray(np.asarray([int(v) for v in vals], dtype=bits).view(dt))
    tensors, layers = {}, []
    for k, layer in enumerate(net.layers):
        if any(isinstance(w, Param) for w in list(layer.weights) + list(layer.bias)):
            raise InputError("a network with symbolic parameters cannot be saved; bind them first")
        order = np.lexsort((layer.cols, layer.rows))
        dense = len(order) == layer.n_out * layer.n_in  # every entry, once (Layer refuses duplicates)
        w = patterns([layer.weights[i] for i in order])
        if dense:
            tensors[f"layers.{k}.weight"] = w.reshape(layer.n_out, layer.n_in)
        else:
            tensors[f"layers.{k}.indptr"] = _narrow(np.concatenate([[0], np.cumsum(np.bincount(layer.rows, minlength=layer.n_out))]))
            tensors[f"layers.{k}.indices"] = _narrow(layer.cols[order])
            tensors[f"layers.{k}.values"] = w
        tensors[f"layers.{k}.bias"] = patterns(layer.bias)
        layers.append({"shape": [layer.n_out, layer.n_in], "activation": layer.activation,
                       "weights": "dense" if dense else "sparse"})
    meta = {"fpsmt": "network", "format": json.dumps(fmt.to_json()), "layers": json.dumps(layers)}
    save_file(tensors, str(path), metadata=meta)
    return Path(path).stat().st_size


def load_safetensors(path) -> Network:
    """A network from a safetensors file written by :func:`write_safetensors` (or by anyone
    who follows its layout); anything else is one error line naming the place."""
    from safetensors import SafetensorError, deserialize, safe_open
    p = Path(path)
    if p.is_dir():
        raise InputError(f"network file {path} is a folder, not a file")
    if not p.exists():
        raise InputError(f"{path}: no such file")
    try:
        with safe_open(str(p), framework="numpy") as f:
            meta = f.metadata() or {}
        raw = {name: t for name, t in deserialize(p.read_bytes())}
    except (SafetensorError, OSError, ValueError) as e:
        raise InputError(f"{path}: not a safetensors file ({str(e).strip() or type(e).__name__})") from None
    if meta.get("fpsmt") != "network" or "format" not in meta or "layers" not in meta:
        raise InputError(f'{path}: a safetensors file without an fpsmt network header '
                         f'(__metadata__ needs "fpsmt": "network", "format" and "layers")')
    try:
        fmt = parse_format(json.loads(meta["format"]))
        specs = json.loads(meta["layers"])
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: the header's format or layers is not JSON ({e})") from None
    if not isinstance(specs, list) or not specs:
        raise InputError(f'{path}: the header\'s "layers" must be a non-empty list')
    st_name, _, bits = _carrier(fmt)

    def tensor(name, dtype, shape, lctx):
        if name not in raw:
            raise InputError(f"{lctx}: no tensor {name}")
        t = raw.pop(name)
        ok = t["dtype"] in _INDEX if dtype == "index" else t["dtype"] == dtype
        if not ok or list(t["shape"]) != list(shape):
            want = "I16, I32 or I64" if dtype == "index" else dtype
            raise InputError(f"{lctx}: tensor {name} is {t['dtype']} {list(t['shape'])}, expected {want} {list(shape)}")
        if dtype == "index":
            return np.frombuffer(bytes(t["data"]), dtype=_INDEX[t["dtype"]]).astype(np.int64)
        return np.frombuffer(bytes(t["data"]), dtype=bits).reshape(-1)

    def checked(vals, name, lctx):
        if fmt.nbits < bits.itemsize * 8 and len(vals) and int(vals.max()) >> fmt.nbits:
            k = int(np.argmax(vals >> fmt.nbits > 0))
            raise InputError(f"{lctx}: {name}[{k}]: bit pattern {hex(int(vals[k]))} does not fit {fmt.name} "
                             f"({fmt.nbits} bits)")
        return vals.tolist()
    layers = []
    for k, spec in enumerate(specs):
        lctx = f"{path}: layer {k}"
        if not (isinstance(spec, dict) and spec.get("weights") in ("dense", "sparse")
                and isinstance(spec.get("shape"), list) and len(spec["shape"]) == 2
                and all(isinstance(n, int) and n >= 1 for n in spec["shape"])):
            raise InputError(f'{lctx}: the header needs "shape": [out, in] (positive) and "weights": dense or sparse')
        n_out, n_in = spec["shape"]
        if spec["weights"] == "dense":
            rows, cols = np.divmod(np.arange(n_out * n_in), n_in)
            ws = checked(tensor(f"layers.{k}.weight", st_name, [n_out, n_in], lctx), "weight", lctx)
        else:
            shape = raw.get(f"layers.{k}.values", {}).get("shape")
            n = shape[0] if isinstance(shape, list) and len(shape) == 1 else -1  # else: tensor() names what it found
            ws = checked(tensor(f"layers.{k}.values", st_name, [n], lctx), "values", lctx)
            indptr = tensor(f"layers.{k}.indptr", "index", [n_out + 1], lctx)
            cols = tensor(f"layers.{k}.indices", "index", [n], lctx)
            if indptr[0] != 0 or indptr[-1] != n or np.any(np.diff(indptr) < 0):
                raise InputError(f"{lctx}: indptr must rise from 0 to the number of values ({n})")
            rows = np.repeat(np.arange(n_out), np.diff(indptr))
        bias = checked(tensor(f"layers.{k}.bias", st_name, [n_out], lctx), "bias", lctx)
        try:
            layers.append(Layer(n_out, n_in, rows, cols, ws, bias, spec.get("activation", "identity")))
        except InputError as e:
            raise InputError(f"{lctx}: {e}") from None
    if raw:
        raise InputError(f"{path}: tensor(s) the header's layers do not name: {', '.join(sorted(raw))}")
    try:
        return Network(fmt, layers)
    except InputError as e:
        raise _where(str(path), str(e)) from None


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
