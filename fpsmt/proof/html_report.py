"""A self-contained HTML page of ``reproduce`` rows or of a ``check`` run: the lemma ×
format × variant table, each row's proof tree (collapsible), counterexamples as bit
patterns with their decimal values, and PNG plots embedded where given."""

from __future__ import annotations

import base64
import html
from pathlib import Path

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #bbb;padding:.3em .5em;vertical-align:top;
font-size:.9em}th{background:#eee;text-align:left}
.PROVED{color:#06600e;font-weight:600}.REFUTED{color:#a00;font-weight:600}.UNKNOWN,.VACUOUS,.MISSING,
.NOT{color:#a60;font-weight:600}details{margin:.2em 0 .2em 1.2em}summary{cursor:pointer}
code{font-size:.9em}.doc{color:#555;font-size:.85em;margin-left:1.2em}img{max-width:100%}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _decimal(fmt_name, pattern) -> str:
    """The value of a hex bit pattern, for people (never parsed back)."""
    from fpsmt.semantics.formats import parse_format
    try:
        f = parse_format(fmt_name)
        b = f.parse_hex(pattern)
    except Exception:  # noqa: BLE001 - an integer variable or a foreign format: shown as it is
        return ""
    if not f.is_finite(b):
        return f.show(b)
    q = f.to_fraction(b)
    return ("-" if f.is_negative(b) and q == 0 else "") + repr(float(q))


def _counterexample(row) -> str:
    cx = row.get("counterexample") or {}
    return "<br>".join(f"{_e(k)} = <code>{_e(v)}</code>" + (f" ({_e(_decimal(row['format'], v))})"
                                                           if isinstance(v, str) and v.startswith("0x") else "")
                       for k, v in cx.items())


def _tree(node, checked=None) -> str:
    status = node.get("status")
    mark = ""
    if checked is not None and node.get("name") in checked:
        ok = checked[node["name"]]["ok"]
        mark = f" — re-check: <span class='{'PROVED' if ok else 'NOT'}'>{'re-established' if ok else 'NOT'}</span>"
    head = (f"<b>{_e(node.get('kind'))}</b> <code>{_e(node.get('name'))}</code>"
            + (f" <span class='{_e(status.split()[0])}'>{_e(status)}</span>" if status else "")
            + (f" {_e(node.get('solver') or '')} {node.get('seconds', 0):.2f} s" if status and 'seconds' in node else "")
            + (f", confirmed by {_e(node['confirmed_by'])}" if node.get("confirmed_by") else "") + mark)
    doc = f"<div class='doc'>{_e(node['doc'])}</div>" if node.get("doc") else ""
    terms = ""
    if node.get("terms"):
        terms = "<div class='doc'>interface terms: " + ", ".join(
            f"{_e(r)} {_e(' '.join(v) if isinstance(v, list) else v)}" for r, v in node["terms"].items()) + "</div>"
    if node.get("statement"):
        terms += f"<div class='doc'>SMT statement hash {_e(node['statement'][:16])}…</div>"
    kids = "".join(_tree(c, checked) for c in node.get("children") or [])
    return f"<details class='node'><summary>{head}</summary>{doc}{terms}{kids}</details>"


def page(rows, title, *, checks=None, plots=()) -> str:
    """The page.  ``checks``: :func:`fpsmt.proof.certificate.check` results, one per row
    (marks every node re-established or not); ``plots``: PNG files to embed."""
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
           f"<style>{STYLE}</style></head><body><h1>{_e(title)}</h1>"]
    if checks is not None:
        good = sum(1 for c in checks if c["ok"])
        out.append(f"<p id='summary'>{good} of {len(checks)} row(s) re-established.</p>")
    out.append("<table id='rows'><thead><tr><th>#</th><th>lemma</th><th>activation</th><th>variant</th>"
               "<th>format</th><th>status</th>" + ("<th>re-check</th>" if checks is not None else "")
               + "<th>counterexample</th><th>statement</th></tr></thead><tbody>")
    for i, r in enumerate(rows):
        st = r.get("status") or ""
        chk = ""
        if checks is not None:
            c = checks[i]
            chk = (f"<td class='{'PROVED' if c['ok'] else 'NOT'}'>{'re-established' if c['ok'] else 'NOT'}"
                   + "".join(f"<br><span class='doc'>{_e(p)}</span>" for p in c["problems"]) + "</td>")
        out.append(f"<tr class='row'><td><a href='#tree-{i}'>{i + 1}</a></td><td>{_e(r.get('lemma'))}</td>"
                   f"<td>{_e(r.get('activation'))}</td><td>{_e(r.get('variant'))}</td><td>{_e(r.get('format'))}</td>"
                   f"<td class='{_e(st)}'>{_e(st)}</td>{chk}<td>{_counterexample(r)}</td>"
                   f"<td>{_e(r.get('statement'))}</td></tr>")
    out.append("</tbody></table><h2>Proof trees</h2>")
    for i, r in enumerate(rows):
        checked = None
        if checks is not None:
            checked = {n["node"]: n for n in checks[i]["nodes"]}
        tree = r.get("tree")
        out.append(f"<section id='tree-{i}'><h3>{i + 1}. {_e(r.get('lemma'))} ({_e(r.get('variant'))}, "
                   f"{_e(r.get('activation'))}) in {_e(r.get('format'))}</h3>"
                   + (_tree(tree, checked) if tree else "<p>no tree</p>") + "</section>")
    for p in plots:
        data = base64.b64encode(Path(p).read_bytes()).decode()
        out.append(f"<h2>{_e(Path(p).name)}</h2><img alt='{_e(Path(p).name)}' src='data:image/png;base64,{data}'>")
    out.append("</body></html>")
    return "\n".join(out)
