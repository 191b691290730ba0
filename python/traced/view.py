"""A graph explorer in the browser: `m.view(path)` and `python -m traced
view` (docs/python.md, "Viewing a graph in the browser").

`view` writes one self-contained HTML file: the page's script, style and
the graph's data are inline, so viewing it needs no network. The data is
the module tree as the graphs of its traced.modules (each once, however
often it is called), each op with its target, result types (shapes,
dtypes, quantization parameters), the graph rows it reads, its source
location and, for calls, parameters and MACs from `Module.summary`. The
page builds the call tree from it and puts only expanded groups' rows into
the DOM.

Reads the IR through the state's API only (no import of module.py, which
imports this module lazily).
"""
from __future__ import annotations

import functools
import http.server
import json
import linecache
import os
import re
import socketserver
import threading
from typing import Any, Dict, List, Optional, Tuple

from .summary import _module_path, _shape_text, expr_macs, summarize


# -- source locations ------------------------------------------------------------
# The op API carries no location; `op_locations` (the binding) reads them
# from the IR, without printing the module (its weights).

def _locations(state) -> Dict[Tuple[str, str], List[Optional[Tuple[str, int, int, str]]]]:
    """{(module, graph): [(file, line, col, scope) or None per op]}."""
    return {k: [tuple(x) if x is not None else None for x in v]
            for k, v in state.op_locations().items()}


# -- the data --------------------------------------------------------------------

def _qparams_text(q: Optional[Dict[str, Any]]) -> str:
    if not q:
        return ""
    if "scale" in q:
        return f"scale={q['scale']:.6g} zero_point={q['zero_point']}"
    scales = q.get("scales") or []
    zps = q.get("zero_points") or []
    shown = ", ".join(f"{s:.4g}" for s in scales[:4]) + (", ..." if len(scales) > 4 else "")
    zshown = ", ".join(str(z) for z in zps[:4]) + (", ..." if len(zps) > 4 else "")
    return (f"per-channel axis={q.get('axis')} scales=[{shown}] "
            f"zero_points=[{zshown}]")


_QUANT = re.compile(r"!quant\.uniform<([^>]*)>")


def _shape_of(value) -> str:
    if value.shape is None and value.dims is None:
        return ""
    dims = value.dims if value.dims is not None else value.shape
    return "[" + ", ".join("?" if d is None else str(d) for d in dims) + "]"


def _short_number(n: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.2f}{unit}"
    return f"{n:g}"


def _constant_text(value) -> str:
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bytes):
        return f"tensor<{'x'.join(str(d) for d in value[2])}x{value[1]}>"
    text = repr(value)
    return text if len(text) <= 48 else text[:45] + "..."


class _Builder:
    def __init__(self, module):
        self.state = module._state
        self.root = module.root_name
        self.strings: List[str] = []
        self.string_ids: Dict[str, int] = {}
        self.types: List[list] = []
        self.type_ids: Dict[Any, int] = {}
        self.locs: List[list] = []
        self.loc_ids: Dict[Any, int] = {}
        self.graphs: List[dict] = []
        self.graph_ids: Dict[Tuple[str, str], int] = {}
        self.infos = {sym: self.state.module_info(sym) for sym in self.state.modules()}
        self.locations = _locations(self.state)

    def s(self, text: str) -> int:
        found = self.string_ids.get(text)
        if found is None:
            found = self.string_ids[text] = len(self.strings)
            self.strings.append(text)
        return found

    def type_of(self, value) -> int:
        type_text = str(value.type)
        q = value.qparams
        qtext = _qparams_text(q)
        if not qtext:
            found = _QUANT.search(type_text)
            if found:
                qtext = found.group(1)
        key = (type_text, _shape_of(value), value.dtype, qtext)
        found = self.type_ids.get(key)
        if found is None:
            found = self.type_ids[key] = len(self.types)
            self.types.append([self.s(key[1]), self.s(key[2] or ""), self.s(qtext),
                               self.s(type_text)])
        return found

    def loc(self, where) -> int:
        if where is None:
            return -1
        found = self.loc_ids.get(where)
        if found is None:
            file, line, col, scope = where
            source = ""
            if not file.startswith("<") and os.path.isfile(file):
                source = linecache.getline(file, line).strip()
            found = self.loc_ids[where] = len(self.locs)
            self.locs.append([self.s(file), line, col, self.s(scope), self.s(source)])
        return found

    def graph(self, sym: str, name: str) -> int:
        key = (sym, name)
        if key in self.graph_ids:
            return self.graph_ids[key]
        index = self.graph_ids[key] = len(self.graphs)
        record: Dict[str, Any] = {"m": self.s(sym), "g": self.s(name)}
        self.graphs.append(record)
        state = self.state
        rows: Dict[Any, int] = {}
        inputs = []
        for v in state.graph_inputs(sym, name)[1:]:
            rows[v] = len(inputs)
            inputs.append([self.s(v.name), self.type_of(v)])
        record["in"] = inputs
        locations = self.locations.get(key)
        all_ops = state.graph_ops(sym, name)
        if locations is not None and len(locations) != len(all_ops):
            locations = None
        ops = []
        op_rows = []
        for position, op in enumerate(all_ops):
            if op.kind == "output":
                record["out"] = [rows[v] for v in op.operands if v in rows]
                op_rows.append(None)
                continue
            if op.kind == "getattr" and op.results and op.results[0].module_name:
                op_rows.append(None)  # folded into the call of the module
                continue
            entry: Dict[str, Any] = {}
            results = op.results
            entry["n"] = [self.s(v.name) for v in results]
            entry["r"] = [self.type_of(v) for v in results]
            reads = []
            for v in op.operands:
                row = rows.get(v)
                if row is not None and row not in reads:
                    reads.append(row)
            entry["i"] = reads
            receiver = op.operands[0].module_name if (
                op.kind == "call_method" and op.operands) else None
            if receiver:
                info = self.infos[receiver]
                path = _module_path(op.operands[0], "") or receiver
                entry["k"] = "c"
                entry["t"] = self.s(info["class"])
                entry["p"] = self.s(path if op.target == "forward" else f"{path}.{op.target}")
                entry["m"] = self.s(receiver)
                if op.target in info["graphs"]:
                    entry["s"] = self.graph(receiver, op.target)
            elif op.kind == "call_function":
                entry["k"] = "f"
                entry["t"] = self.s(op.target)
                macs = expr_macs(op)
                if macs:
                    entry["x"] = macs
            elif op.kind == "call_method":
                entry["k"] = "m"
                entry["t"] = self.s(f"Tensor.{op.target}")
                macs = expr_macs(op)
                if macs:
                    entry["x"] = macs
            elif op.kind == "getattr":
                entry["k"] = "g"
                entry["t"] = self.s(_module_path(results[0], "") or op.target)
            elif op.kind == "constant":
                entry["k"] = "k"
                try:
                    entry["t"] = self.s(_constant_text(op.value))
                except Exception:
                    entry["t"] = self.s("constant")
            else:
                entry["k"] = "o"
                entry["t"] = self.s(str(op.target or op.kind))
            if locations is not None:
                where = self.loc(locations[position])
                if where >= 0:
                    entry["l"] = where
            row = len(inputs) + len(ops)
            for v in results:
                rows[v] = row
            op_rows.append(len(ops))
            entry["_index"] = position
            ops.append(entry)
        record["ops"] = ops
        record.setdefault("out", [])
        return index

    def attach_summary(self, summary) -> None:
        """Parameters and MACs of each module call, from the summary's rows
        (the same walk as summarize's: call order, a graph not re-entered)."""
        rows = iter(summary.rows[1:])
        by_position = {}
        for g in self.graphs:
            for entry in g["ops"]:
                by_position[(g["m"], g["g"], entry["_index"])] = entry

        def walk(sym, graph, active):
            key = self.graph_ids.get((sym, graph))
            for op in self.state.graph_ops(sym, graph):
                receiver = op.operands[0].module_name if (
                    op.kind == "call_method" and op.operands) else None
                if not receiver:
                    continue
                row = next(rows, None)
                if row is None:
                    return
                entry = by_position.get((self.s(sym), self.s(graph), op.index)) \
                    if key is not None else None
                if entry is not None and "p_" not in entry:
                    entry["p_"] = True
                    entry["w"] = row.params
                    entry["x"] = row.macs
                info = self.infos[receiver]
                if op.target in info["graphs"] and (receiver, op.target) not in active:
                    walk(receiver, op.target, active | {(receiver, op.target)})

        walk(self.root, "forward", frozenset({(self.root, "forward")}))
        for g in self.graphs:
            for entry in g["ops"]:
                entry.pop("_index", None)
                entry.pop("p_", None)


def page_data(module) -> Dict[str, Any]:
    """The data the page shows (what `view` embeds), as JSON-ready dicts."""
    b = _Builder(module)
    b.graph(b.root, "forward")
    summary = summarize(module)
    b.attach_summary(summary)
    rows = [[r.path, r.class_name.rsplit(".", 1)[-1], r.depth,
             _shape_text(r.output_shapes), ", ".join(d or "-" for d in r.output_dtypes),
             r.params, r.macs] for r in summary.rows]
    return {
        "format": "traced-view", "version": 1,
        "name": summary.name,
        "class": b.infos[b.root]["class"],
        "strings": b.strings, "types": b.types, "locs": b.locs,
        "graphs": b.graphs, "root": 0,
        "summary": {"rows": rows, "params": summary.total_params,
                    "param_bytes": summary.total_param_bytes,
                    "macs": summary.total_macs,
                    "inputs": _shape_text(summary.input_shapes),
                    "dtypes": ", ".join(d or "-" for d in summary.input_dtypes),
                    "dynamic": summary.dynamic},
    }


def html(module, title: Optional[str] = None) -> str:
    """The page as one string: style, script and data inline."""
    data = page_data(module)
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    # Inside <script>: no "</" (a </script> would end it) and no "<!--".
    payload = payload.replace("</", "<\\/").replace("<!--", "<\\!--")
    title = title or f"{data['name']} (TracedIR)"
    escaped = (title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    from . import _view_page
    # One pass, so that nothing inserted is itself replaced.
    parts = {"/*TITLE*/": escaped, "/*STYLE*/": _view_page.CSS,
             "/*DATA*/": payload, "/*SCRIPT*/": _view_page.JS}
    return re.sub(r"/\*(TITLE|STYLE|DATA|SCRIPT)\*/", lambda m: parts[m.group(0)],
                  _view_page.HTML)


def serve_file(path: str, port: int = 0, host: str = "127.0.0.1"):
    """An http.server serving `path`'s folder on localhost in a daemon
    thread; returns (server, url). `server.shutdown()` stops it."""
    path = os.path.abspath(path)
    handler = functools.partial(_QuietHandler, directory=os.path.dirname(path))
    server = socketserver.ThreadingTCPServer((host, port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://{host}:{server.server_address[1]}/{os.path.basename(path)}"
    return server, url


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # no request log on stderr
        pass


def view(module, path, serve: bool = False, port: int = 0) -> str:
    """Writes the explorer page of `module` to `path` (one self-contained
    HTML file); returns the path. With `serve`, then serves it on
    localhost (`port`, 0: a free one), prints the URL and blocks until
    Ctrl-C."""
    path = os.fspath(path)
    text = html(module)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    if serve:
        server, url = serve_file(path, port)
        print(f"serving {path} at {url} (Ctrl-C stops)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()
            server.server_close()
    return path
