"""Certificates: `reproduce --certificate` writes every row's tree, `fpsmt check`
re-establishes it from scratch (exit 0), and names what a tampered certificate changed
(exit 3); a file that is not a certificate is exit 2."""

import copy
import json

import pytest
from conftest import fpsmt

from fpsmt.commands.cli import main


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("cert")
    path = d / "c.json"
    r = fpsmt("reproduce", "--lemma", "multiplication_transfer,cancellation_block", "--format", "float8_e4m3",
              "--store", str(d / "s.sqlite"), "--report", str(d / "r.md"), "--certificate", str(path))
    assert r.returncode == 0, r.stderr
    return json.loads(path.read_text())


def _check(tmp_path, doc, capsys):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    code = main(["check", str(p), "--json", "--timeout", "120"])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if cap.out.strip() else None), cap.err


def _node(tree, name):
    if tree.get("name") == name:
        return tree
    for c in tree.get("children") or []:
        got = _node(c, name)
        if got is not None:
            return got
    return None


def _row(doc, lemma, variant):
    return next(r for r in doc["rows"] if r["lemma"] == lemma and r["variant"] == variant
                and "blocks then" not in r["statement"])


def test_the_certificate_holds_the_trees(cert):
    row = _row(cert, "multiplication_transfer", "repaired")
    kinds = [n["kind"] for n in row["tree"]["children"]]
    assert row["status"] == "PROVED" and kinds == ["stage", "stage", "stage"]
    target = _node(row["tree"], "multiplication_transfer.target")
    assert target["children"][0]["kind"] == "cases" and target["status"] == "PROVED"
    assert len(target["statement"]) == 64 and target["confirmed_by"]
    assert row["tree"]["children"][1]["terms"]["hypothesis"] == row["tree"]["children"][0]["terms"]["guarantee"]
    assert _node(_row(cert, "cancellation_block", "repaired")["tree"], "cancellation_block.stages")["kind"] == \
        "induction"


def test_check_re_establishes_an_honest_certificate(cert, tmp_path, capsys):
    code, js, err = _check(tmp_path, cert, capsys)
    assert code == 0, err
    assert js["ok"] and all(r["ok"] for r in js["rows"]) and len(js["rows"]) == len(cert["rows"])
    assert sum(len(r["nodes"]) for r in js["rows"]) >= 12


def _tamper(doc, how):
    doc = copy.deepcopy(doc)
    row = _row(doc, "multiplication_transfer", "repaired")
    if how == "statement":
        row["stated"] = row["stated"].replace("finite h != 0", "finite h")
    elif how == "shown":
        row["statement"] = row["statement"].replace("finite h != 0", "finite h")
    elif how == "hash":
        _node(row["tree"], "multiplication_transfer.scale")["statement"] = "0" * 64
    elif how == "removed":
        row["tree"]["children"].pop(1)
    elif how == "format":
        row["format"] = "float8_e5m2"
    elif how == "status":
        _node(row["tree"], "multiplication_transfer.significand")["status"] = "REFUTED"
    elif how == "unknown":
        _node(row["tree"], "multiplication_transfer.significand")["status"] = "UNKNOWN"
    elif how == "kind":
        _node(row["tree"], "multiplication_transfer.target.cases")["kind"] = "join"
    elif how == "terms":
        row["tree"]["children"][1]["terms"]["hypothesis"] = "f" * 16
    return doc


@pytest.mark.parametrize("how,named", [
    ("statement", "no row of the installed proof files has this statement"),
    ("shown", "the row's statement is not the one the re-decided row gives"),
    ("hash", "node multiplication_transfer.scale: SMT statement hash"),
    ("removed", "missing from the certificate"),
    ("format", "no row of the installed proof files"),
    ("status", "node multiplication_transfer.significand: re-decided PROVED, the certificate says REFUTED"),
    ("unknown", "node multiplication_transfer.significand: the certificate says UNKNOWN"),
    ("kind", "kind 'join' in the certificate, 'cases' installed"),
    ("terms", "interface terms differ"),
])
def test_a_tampered_certificate_is_exit_3_and_names_the_change(cert, tmp_path, capsys, how, named):
    code, js, err = _check(tmp_path, _tamper(cert, how), capsys)
    assert code == 3
    bad = [r for r in js["rows"] if not r["ok"]]
    assert len(bad) == 1 and bad[0]["row"].startswith("multiplication_transfer (repaired")
    assert any(named in p for p in bad[0]["problems"]), bad[0]["problems"]
    assert named in err


@pytest.mark.parametrize("doc", ["[1, 2]", "{\"certificate\": \"other\", \"rows\": []}", "not json",
                                 "{\"certificate\": \"fpsmt\", \"version\": 1, \"rows\": [{\"lemma\": 1}]}"])
def test_a_file_that_is_not_a_certificate_is_exit_2(tmp_path, capsys, doc):
    code, js, err = _check(tmp_path, doc, capsys)
    assert code == 2 and js is None and err.count("\n") == 1 and "fpsmt: error:" in err
