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
