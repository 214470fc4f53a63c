"""Network JSON and points CSV: round trips and clear refusals."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpsmt.semantics.arith import concrete
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, parse_format
from fpsmt.commands.netio import load_network, load_points, network_from_json, network_to_json, save_network
from fpsmt.semantics.network import run

from conftest import NAMED_FORMATS, uarr
from test_network import networks


@pytest.mark.parametrize("fmt", NAMED_FORMATS + [Format(6, 3)], ids=str)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_roundtrip_dense_and_sparse(fmt, data, tmp_path_factory):
    net = data.draw(networks(fmt, sparse=True))
    for mode in (True, False, "auto"):
        doc = network_to_json(net, sparse=mode)
        back = network_from_json(json.loads(json.dumps(doc)))
        assert back.fmt == fmt and back.depth == net.depth
        A = concrete(fmt)
        x = A.const(uarr(fmt, [[fmt.one_bits] * net.n_in]))
        y = A.const(uarr(fmt, [[fmt.one_bits] * net.n_out]))
        t1, t2 = run(A, net, x, y), run(A, back, x, y)
        assert np.array_equal(A.to_bits(t1.out), A.to_bits(t2.out))
        assert np.array_equal(A.to_bits(t1.grad), A.to_bits(t2.grad))


def test_format_object_and_custom_name(tmp_path):
    net = network_from_json({"format": {"E": 6, "M": 3}, "layers": [
        {"weights": [["0x1"]], "bias": ["0x0"], "activation": "relu"}]})
    assert net.fmt == Format(6, 3)
    assert network_to_json(net)["format"] == {"E": 6, "M": 3}
    p = tmp_path / "n.json"
    size = save_network(net, p)
    assert p.stat().st_size == size and not (tmp_path / "n.json.tmp").exists()


BAD_DOCS = [
    ({"layers": []}, "format"),
    ({"format": "float7", "layers": [{"weights": [["0x0"]], "bias": ["0x0"]}]}, "float7"),
    ({"format": "bf16", "layers": []}, "non-empty"),
    ({"format": "bf16", "layers": [{"weights": [["0x10000"]], "bias": ["0x0"]}]}, "does not fit"),
    ({"format": "bf16", "layers": [{"weights": [["1.0"]], "bias": ["0x0"]}]}, "not a hex"),
    ({"format": "bf16", "layers": [{"weights": [["0x0", "0x0"], ["0x0"]], "bias": ["0x0", "0x0"]}]}, "equal length"),
    ({"format": "bf16", "layers": [{"weights": [["0x0"]], "bias": ["0x0", "0x0"]}]}, "bias"),
    ({"format": "bf16", "layers": [{"weights": {"shape": [1, 1], "entries": [[0, 3, "0x0"]]}, "bias": ["0x0"]}]},
     "outside"),
    ({"format": "bf16", "layers": [{"weights": {"shape": [1, 1], "entries": [[0, 0, "0x0"], [0, 0, "0x1"]]},
                                    "bias": ["0x0"]}]}, "duplicate"),
    ({"format": "bf16", "layers": [{"weights": [["0x0"]], "bias": ["0x0"], "activation": "swishy"}]}, "activation"),
    ({"format": "bf16", "layers": [{"weights": [["0x0"]], "bias": ["0x0"]},
                                   {"weights": [["0x0", "0x0"]], "bias": ["0x0"]}]}, "chain"),
]


@pytest.mark.parametrize("doc,word", BAD_DOCS)
def test_bad_network_json(doc, word):
    with pytest.raises(InputError, match=word):
        network_from_json(doc)


def test_bad_files(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_network(p)
    with pytest.raises(InputError, match="no such file"):
        load_network(tmp_path / "missing.json")
    f = parse_format("bfloat16")
    pts = tmp_path / "p.csv"
    pts.write_text("0x3f80,0x3f80\n0x3f80\n")
    with pytest.raises(InputError, match="line 2: expected 2"):
        load_points(pts, f, 1, 1)
    pts.write_text("0x3f80,0x13f80\n")
    with pytest.raises(InputError, match="line 1"):
        load_points(pts, f, 1, 1)
    pts.write_text("\n")
    with pytest.raises(InputError, match="no points"):
        load_points(pts, f, 1, 1)


# ------------------------------------------------------------------ safetensors
def _entries(net):
    """Every layer's entries as a set of (row, col, pattern), with its bias and activation."""
    return [(sorted(zip(L.rows.tolist(), L.cols.tolist(), [int(w) for w in L.weights])),
             [int(b) for b in L.bias], L.activation, L.n_out, L.n_in) for L in net.layers]


@pytest.mark.parametrize("fmt", NAMED_FORMATS + [Format(6, 3), Format(3, 1), Format(11, 30)], ids=str)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_safetensors_roundtrip_is_bit_exact(fmt, data, tmp_path_factory):
    """Every entry, bias and activation comes back as written, dense and sparse layers
    alike (NaN payloads and −0 included: the strategy draws every pattern), and the JSON
    and safetensors files of one network run to the same bits."""
    net = data.draw(networks(fmt, sparse=data.draw(st.booleans())))
    d = tmp_path_factory.mktemp("st")
    size = save_network(net, d / "n.safetensors")
    assert (d / "n.safetensors").stat().st_size == size
    save_network(net, d / "n.json")
    back, js = load_network(d / "n.safetensors"), load_network(d / "n.json")
    assert back.fmt == fmt and _entries(back) == _entries(net)
    A = concrete(fmt)
    x = A.const(uarr(fmt, [[fmt.one_bits] * net.n_in]))
    y = A.const(uarr(fmt, [[fmt.one_bits] * net.n_out]))
    t1, t2 = run(A, js, x, y), run(A, back, x, y)
    assert np.array_equal(A.to_bits(t1.out), A.to_bits(t2.out))
    assert np.array_equal(A.to_bits(t1.grad), A.to_bits(t2.grad))


def _header(path):
    import struct
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    return json.loads(raw[8:8 + n])


def test_safetensors_layout_uses_the_formats_own_dtype(tmp_path):
    """bfloat16 patterns are stored as BF16 (what other tools read as weights), an E6M3
    network's 10-bit patterns as U16; a layer with every entry is one [out, in] tensor, a
    sparse one compressed rows with I16 indices."""
    dense = network_from_json({"format": "bfloat16", "layers": [
        {"weights": [["0x3f80", "0x8000"], ["0x7fc1", "0x0001"]], "bias": ["0x4000", "0xff80"], "activation": "relu"},
        {"weights": {"shape": [1, 2], "entries": [[0, 1, "0xbf80"]]}, "bias": ["0x0000"]}]})
    save_network(dense, tmp_path / "b.safetensors")
    h = _header(tmp_path / "b.safetensors")
    assert h["layers.0.weight"]["dtype"] == "BF16" and h["layers.0.weight"]["shape"] == [2, 2]
    assert h["layers.1.values"]["dtype"] == "BF16" and h["layers.1.indices"]["dtype"] == "I16"
    assert h["__metadata__"]["fpsmt"] == "network" and json.loads(h["__metadata__"]["format"]) == "bfloat16"
    assert [L["weights"] for L in json.loads(h["__metadata__"]["layers"])] == ["dense", "sparse"]
    e63 = network_from_json({"format": {"E": 6, "M": 3}, "layers": [{"weights": [["0x3ff"]], "bias": ["0x0"]}]})
    save_network(e63, tmp_path / "e.safetensors")
    assert _header(tmp_path / "e.safetensors")["layers.0.weight"]["dtype"] == "U16"


def test_safetensors_is_smaller_than_json(tmp_path):
    """A construct network (sparse, about one entry per neuron) in bfloat16: the
    safetensors file is under half the JSON file's size."""
    from fpsmt.commands import targets
    from fpsmt.constructions.registry import get_construction
    from fpsmt.resources import resolve
    fmt = parse_format("bfloat16")
    pts = targets.load_targets(resolve("example:sin_misleading.py"), fmt)[:20]
    net = get_construction("relu").network(fmt, pts)
    a, b = save_network(net, tmp_path / "n.json"), save_network(net, tmp_path / "n.safetensors")
    assert 2 * b < a
    assert targets.verify(fmt, load_network(tmp_path / "n.safetensors"), pts)[0] == []


def _tamper(tmp_path, edit):
    """A valid bfloat16 safetensors network with ``edit(tensors, metadata)`` applied,
    written by safetensors itself."""
    from safetensors.numpy import save_file
    tensors = {"layers.0.indptr": np.array([0, 1, 2], dtype=np.int16),
               "layers.0.indices": np.array([0, 0], dtype=np.int16),
               "layers.0.values": np.array([0x3f80, 0x4000], dtype=np.uint16),
               "layers.0.bias": np.array([0, 0], dtype=np.uint16)}
    meta = {"fpsmt": "network", "format": '"float16"',
            "layers": json.dumps([{"shape": [2, 1], "activation": "relu", "weights": "sparse"}])}
    edit(tensors, meta)
    p = tmp_path / "t.safetensors"
    save_file({k: v.view(np.float16) if v.dtype == np.uint16 else v for k, v in tensors.items()}, str(p),
              metadata=meta)
    return p


def test_safetensors_tamper_baseline_loads(tmp_path):
    net = load_network(_tamper(tmp_path, lambda t, m: None))
    assert _entries(net) == [([(0, 0, 0x3f80), (1, 0, 0x4000)], [0, 0], "relu", 2, 1)]


BAD_SAFETENSORS = [
    (lambda t, m: m.pop("fpsmt"), "without an fpsmt network header"),
    (lambda t, m: m.update(format='"float7"'), "float7"),
    (lambda t, m: m.update(layers="[{"), "not JSON"),
    (lambda t, m: m.update(layers="[]"), "non-empty"),
    (lambda t, m: m.update(layers='[{"shape": [2], "weights": "sparse"}]'), "shape"),
    (lambda t, m: t.pop("layers.0.bias"), "no tensor layers.0.bias"),
    (lambda t, m: t.update({"layers.1.bias": np.zeros(1, np.uint16)}), "do not name: layers.1.bias"),
    (lambda t, m: t.update({"layers.0.values": np.array([1, 2], np.uint32)}), "expected F16"),
    (lambda t, m: t.update({"layers.0.indptr": np.array([0, 2, 1], np.int16)}), "indptr must rise"),
    (lambda t, m: t.update({"layers.0.indices": np.array([0, 3], np.int16)}), "outside"),
    (lambda t, m: t.update({"layers.0.indices": np.array([0, 0], np.float32)}), "I16, I32 or I64"),
    (lambda t, m: m.update(layers=json.dumps([{"shape": [2, 1], "activation": "swishy", "weights": "sparse"}])),
     "activation"),
]


@pytest.mark.parametrize("edit,word", BAD_SAFETENSORS)
def test_bad_safetensors(tmp_path, edit, word):
    with pytest.raises(InputError, match=word):
        load_network(_tamper(tmp_path, edit))


def test_bad_safetensors_files(tmp_path):
    p = tmp_path / "x.safetensors"
    p.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not a header}")
    with pytest.raises(InputError, match="not a safetensors file"):
        load_network(p)
    with pytest.raises(InputError, match="no such file"):
        load_network(tmp_path / "missing.safetensors")
    wide = Format(11, 60)  # 72-bit patterns: no safetensors integer holds them
    net = network_from_json({"format": {"E": 11, "M": 60}, "layers": [{"weights": [["0x1"]], "bias": ["0x0"]}]})
    assert net.fmt == wide
    with pytest.raises(InputError, match="at most 64 bits; write JSON"):
        save_network(net, tmp_path / "w.safetensors")
    assert list(tmp_path.iterdir()) == [p]  # nothing half-written left behind


def test_safetensors_pattern_wider_than_the_format(tmp_path):
    """An E6M3 network stores 10-bit patterns in U16: a value of 11 bits is refused, naming it."""
    from safetensors.numpy import save_file
    p = tmp_path / "e.safetensors"
    save_file({"layers.0.weight": np.array([[0x400]], np.uint16), "layers.0.bias": np.array([0], np.uint16)}, str(p),
              metadata={"fpsmt": "network", "format": json.dumps({"E": 6, "M": 3}),
                        "layers": json.dumps([{"shape": [1, 1], "activation": "identity", "weights": "dense"}])})
    with pytest.raises(InputError, match=r"weight\[0\]: bit pattern 0x400 does not fit E6M3"):
        load_network(p)


@pytest.mark.parametrize("name", ["n.txt", "n", "n.safetensor"])
def test_construct_refuses_an_out_that_is_not_a_network_file(tmp_path, name):
    """--out must end in .json or .safetensors: one line, exit 2, nothing written."""
    from conftest import fpsmt
    r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", "bfloat16",
              "--out", str(tmp_path / name))
    assert r.returncode == 2 and "a network file ends in .json or .safetensors" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and list(tmp_path.iterdir()) == []
