"""The explorer page of view.py: its HTML skeleton, style and script, kept
as Python strings so that the package is its .py files (the build copies
python/traced/*.py). view.html() fills in /*TITLE*/, /*STYLE*/, /*DATA*/
(the graph data as JSON) and /*SCRIPT*/.

The script builds the call tree from the data (every op of every graph a
module call runs, once per call), and puts only the rows of expanded
groups into the DOM. Each group's edges are an SVG in its left gutter:
one arc from the row that defines a value to each row that reads it.
Errors (window.onerror, console.error) are listed in #errors and in
window.__viewErrors, which python/tests/test_view.py reads.
"""

HTML = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>/*TITLE*/</title>
<style>/*STYLE*/</style>
</head>
<body>
<header>
  <div id="title"></div>
  <input id="search" type="search" placeholder="search name, path or target (/ to focus, Enter: next)" autocomplete="off" spellcheck="false">
  <span id="hits"></span>
  <button id="expand-all" type="button" title="expand every group (large models: many rows)">expand all</button>
  <button id="collapse-all" type="button">collapse all</button>
</header>
<main>
  <div id="graph" tabindex="0"></div>
  <aside id="side">
    <nav>
      <button type="button" data-tab="node" class="on">node</button>
      <button type="button" data-tab="summary">summary</button>
      <button type="button" data-tab="results">search</button>
    </nav>
    <section id="tab-node" class="tab on"><p class="muted">Click a row: its target, types, quantization, source line and users. Click a module call to open or close it.</p></section>
    <section id="tab-summary" class="tab"></section>
    <section id="tab-results" class="tab"><p class="muted">Type in the search box.</p></section>
  </aside>
</main>
<footer><span id="status"></span><span id="errors"></span></footer>
<svg width="0" height="0" style="position:absolute"><defs>
  <marker id="arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0L6,3L0,6z" fill="context-stroke"></path></marker>
</defs></svg>
<script id="traced-data" type="application/json">/*DATA*/</script>
<script>/*SCRIPT*/</script>
</body>
</html>
"""

CSS = r"""
:root { --row: 20px; --gutter: 34px; --fg: #1d2330; --muted: #7a8291; --line: #d9dde4;
        --call: #1f6f43; --fn: #2a4d9b; --meth: #7a3e9d; --const: #8a8f99; --hl: #e8590c; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; color: var(--fg);
       display: flex; flex-direction: column; background: #fff; }
header { display: flex; align-items: center; gap: 8px; padding: 6px 10px; border-bottom: 1px solid var(--line);
         background: #f6f7f9; flex: none; }
#title { font-weight: bold; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 45%; }
#title .muted { font-weight: normal; }
#search { flex: 1; min-width: 120px; font: inherit; padding: 3px 6px; border: 1px solid #b9c0cc; border-radius: 3px; }
#hits { color: var(--muted); white-space: nowrap; min-width: 5em; }
button { font: inherit; background: #fff; border: 1px solid #b9c0cc; border-radius: 3px; padding: 2px 8px; cursor: pointer; }
button:hover { background: #eef1f5; }
main { flex: 1; display: flex; min-height: 0; }
#graph { flex: 1; overflow: auto; padding: 6px 4px 40px 4px; outline: none; }
aside { width: 420px; flex: none; border-left: 1px solid var(--line); display: flex; flex-direction: column; min-height: 0; }
aside nav { display: flex; gap: 4px; padding: 6px; border-bottom: 1px solid var(--line); background: #f6f7f9; }
aside nav button.on { background: #dfe6f0; font-weight: bold; }
.tab { display: none; overflow: auto; padding: 8px; flex: 1; }
.tab.on { display: block; }
footer { flex: none; border-top: 1px solid var(--line); padding: 2px 10px; color: var(--muted); display: flex; gap: 16px; }
#errors { color: #c92a2a; }
.muted { color: var(--muted); }
.nest { position: relative; padding-left: var(--gutter); }
.nest .nest { margin: 0 0 2px 14px; border-left: 2px solid #cfd8e3; background: rgba(70, 110, 160, 0.035); }
.nest > svg.edges { position: absolute; left: 0; top: 0; width: var(--gutter); overflow: visible; pointer-events: none; }
svg.edges path { fill: none; stroke: #a9b3c2; stroke-width: 1; marker-end: url(#arrow); }
svg.edges path.hl { stroke: var(--hl); stroke-width: 2; }
.row { height: var(--row); line-height: var(--row); white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
       cursor: default; padding-right: 6px; border-radius: 2px; }
.row:hover { background: #eef3fa; }
.row.sel { background: #ffe8cc; }
.row.hit { box-shadow: inset 3px 0 0 #f59f00; }
.row.current { outline: 2px solid #f59f00; }
.row.group { cursor: pointer; }
.row .tw { display: inline-block; width: 1.2em; color: var(--muted); }
.row .nm { font-weight: bold; margin-right: 0.6em; }
.row .tg { margin-right: 0.8em; }
.row.k-c .tg { color: var(--call); }
.row.k-f .tg { color: var(--fn); }
.row.k-m .tg { color: var(--meth); }
.row.k-k .tg, .row.k-g .tg { color: var(--const); }
.row.io { color: var(--muted); font-style: italic; }
.row .sh { color: #364fc7; margin-right: 0.4em; }
.row .dt { color: #5c940d; margin-right: 0.8em; }
.row .q { color: #c2255c; margin-right: 0.8em; }
.row .cost { color: var(--muted); margin-right: 0.8em; }
.row .loc { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 1px 6px 1px 0; vertical-align: top; }
#tab-summary td { white-space: nowrap; }
th { color: var(--muted); font-weight: normal; white-space: nowrap; }
#tab-summary td.num, #tab-summary th.num { text-align: right; }
#tab-summary tr.srow { cursor: pointer; }
#tab-summary tr.srow:hover, #tab-results li:hover { background: #eef3fa; }
#tab-results ul { list-style: none; padding: 0; margin: 0; }
#tab-results li { cursor: pointer; padding: 1px 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.src { background: #f6f7f9; padding: 4px 6px; white-space: pre-wrap; word-break: break-all; border-radius: 3px; }
a.jump { color: #1c7ed6; cursor: pointer; text-decoration: underline; }
.totals { margin-bottom: 6px; }
"""

JS = r"""
'use strict';
(function () {
  const errors = [];
  window.__viewErrors = errors;
  function noteError(text) {
    errors.push(String(text));
    const el = document.getElementById('errors');
    if (el) el.textContent = errors.length + ' error(s): ' + errors[errors.length - 1];
  }
  window.addEventListener('error', function (e) { noteError(e.message || e); });
  window.addEventListener('unhandledrejection', function (e) { noteError(e.reason); });
  const consoleError = console.error;
  console.error = function () {
    noteError(Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };

  const started = performance.now();
  const D = JSON.parse(document.getElementById('traced-data').textContent);
  const S = D.strings, T = D.types, L = D.locs, G = D.graphs;
  const $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function si(n) {
    const units = [['T', 1e12], ['G', 1e9], ['M', 1e6], ['K', 1e3]];
    for (const [u, s] of units) if (Math.abs(n) >= s) return (n / s).toFixed(2) + u;
    return String(n);
  }
  function grouped(n) { return n.toLocaleString('en-US'); }
  function baseName(f) { const i = f.lastIndexOf('/'); return i < 0 ? f : f.slice(i + 1); }
  function shortClass(c) { const i = c.lastIndexOf('.'); return i < 0 ? c : c.slice(i + 1); }

  // -- the call tree: one instance per op of every graph a call runs --------
  const insts = [];
  const root = { id: 0, gi: -1, oi: -1, parent: -1, depth: 0, path: '', sub: D.root,
                 kids: null, expanded: true };
  insts.push(root);
  const byPath = new Map();
  function build(inst, active) {
    const g = G[inst.sub];
    inst.kids = [];
    for (let j = 0; j < g.ops.length; j++) {
      const op = g.ops[j];
      const child = { id: insts.length, gi: inst.sub, oi: j, parent: inst.id, depth: inst.depth + 1,
                      path: inst.path, sub: -1, kids: null, expanded: false };
      if (op.k === 'c') {
        const rel = S[op.p];
        child.path = inst.path ? inst.path + '.' + rel : rel;
        if (!byPath.has(child.path)) byPath.set(child.path, child.id);
        if (op.s !== undefined && !active.has(op.s)) child.sub = op.s;
      }
      insts.push(child);
      inst.kids.push(child.id);
      if (child.sub >= 0) {
        active.add(child.sub);
        build(child, active);
        active.delete(child.sub);
      }
    }
  }
  build(root, new Set([D.root]));

  function opOf(inst) { return G[inst.gi].ops[inst.oi]; }
  function nameOf(inst) {
    const op = opOf(inst);
    if (op.k === 'c') return S[op.p];
    return op.n.length ? op.n.map(function (i) { return S[i]; }).join(', ') : '(' + S[op.t] + ')';
  }
  function targetOf(op) { return op.k === 'c' ? shortClass(S[op.t]) : S[op.t]; }
  function typeParts(types) {
    const shapes = [], dtypes = [], qs = [], others = [];
    for (const t of types) {
      const ty = T[t];
      if (S[ty[0]]) { shapes.push(S[ty[0]]); dtypes.push(S[ty[1]]); } else others.push(S[ty[3]]);
      if (S[ty[2]]) qs.push(S[ty[2]]);
    }
    return { shape: shapes.join(', '), dtype: Array.from(new Set(dtypes)).join(', '),
             q: qs.join('; '), other: others.join(', ') };
  }
  function locText(l) {
    if (l === undefined) return '';
    const loc = L[l];
    return baseName(S[loc[0]]) + ':' + loc[1];
  }

  // -- rows ------------------------------------------------------------------
  let selected = -1, query = '', hits = [], hitSet = new Set(), current = -1;
  const rowOf = new Map();  // instance id -> row element (rendered ones)

  function makeRow(inst) {
    const op = opOf(inst);
    const row = el('div', 'row k-' + op.k);
    row.id = 'n' + inst.id;
    row.dataset.id = inst.id;
    row.dataset.name = op.n.map(function (i) { return S[i]; }).join(',');
    if (op.k === 'c') row.dataset.path = inst.path;
    if (inst.sub >= 0) row.classList.add('group');
    row.appendChild(el('span', 'tw', inst.sub >= 0 ? (inst.expanded ? '\u25be' : '\u25b8') : ''));
    row.appendChild(el('span', 'nm', nameOf(inst)));
    const tg = el('span', 'tg', targetOf(op));
    tg.title = S[op.t];
    row.appendChild(tg);
    const parts = typeParts(op.r);
    if (parts.shape) row.appendChild(el('span', 'sh', parts.shape));
    if (parts.dtype) row.appendChild(el('span', 'dt', parts.dtype));
    if (!parts.shape && parts.other && op.k !== 'k') row.appendChild(el('span', 'dt', parts.other));
    if (parts.q) row.appendChild(el('span', 'q', 'q: ' + parts.q));
    const cost = [];
    if (op.w) cost.push(si(op.w) + ' params');
    if (op.x) cost.push(si(op.x) + ' MACs');
    if (cost.length) row.appendChild(el('span', 'cost', cost.join(' \u00b7 ')));
    if (op.l !== undefined) {
      const loc = el('span', 'loc', locText(op.l));
      loc.title = S[L[op.l][0]] + ':' + L[op.l][1] + ':' + L[op.l][2];
      row.appendChild(loc);
    }
    if (inst.id === selected) row.classList.add('sel');
    if (hitSet.has(inst.id)) row.classList.add('hit');
    if (inst.id === current) row.classList.add('current');
    rowOf.set(inst.id, row);
    return row;
  }
  function ioRow(text, types) {
    const row = el('div', 'row io');
    row.appendChild(el('span', 'tw', ''));
    row.appendChild(el('span', 'nm', text));
    const parts = typeParts(types);
    if (parts.shape) row.appendChild(el('span', 'sh', parts.shape));
    if (parts.dtype) row.appendChild(el('span', 'dt', parts.dtype));
    if (parts.q) row.appendChild(el('span', 'q', 'q: ' + parts.q));
    return row;
  }

  // A group's rows: its graph's inputs, one item per op (the op's row, and
  // its own nest when expanded), the output; edges in the gutter's SVG.
  function renderNest(inst) {
    const g = G[inst.sub];
    const nest = el('div', 'nest');
    nest.dataset.id = inst.id;
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('class', 'edges');
    nest.appendChild(svg);
    const rows = [];
    for (const input of g.in) {
      const r = ioRow('in ' + S[input[0]], [input[1]]);
      nest.appendChild(r);
      rows.push(r);
    }
    const edges = [];
    const base = g.in.length;
    for (const id of inst.kids) {
      const child = insts[id];
      const item = el('div', 'item');
      const row = makeRow(child);
      item.appendChild(row);
      if (child.sub >= 0 && child.expanded) item.appendChild(renderNest(child));
      nest.appendChild(item);
      for (const from of opOf(child).i) edges.push([from, rows.length]);
      rows.push(row);
    }
    const outTypes = [];
    for (const r of g.out) {
      edges.push([r, rows.length]);
      const types = r < base ? [g.in[r][1]] : g.ops[r - base].r;
      for (const t of types) outTypes.push(t);
    }
    const out = ioRow('return ' + g.out.map(function (r) {
      return r < base ? S[g.in[r][0]] : (g.ops[r - base].n.length ? S[g.ops[r - base].n[0]] : '?');
    }).join(', '), outTypes);
    nest.appendChild(out);
    rows.push(out);
    nest._rows = rows;
    nest._edges = edges;
    nest._base = base;
    return nest;
  }

  // Edges: read every nest's row positions first, then write the SVGs.
  function drawEdges(nests) {
    const measured = [];
    for (const nest of nests) {
      if (!nest.isConnected) continue;
      measured.push([nest, nest._rows.map(function (r) { return r.offsetTop + r.offsetHeight / 2; }),
                     nest.offsetHeight]);
    }
    for (const [nest, ys, height] of measured) {
      const svg = nest.firstChild;
      svg.setAttribute('height', height);
      const x = 30;
      let d = '';
      const paths = [];
      for (const [a, b] of nest._edges) {
        const span = Math.max(1, b - a);
        const w = Math.min(28, 4 + 6 * Math.log2(1 + span));
        paths.push('<path data-f="' + a + '" data-t="' + b + '" d="M' + x + ' ' + ys[a].toFixed(1) +
                   'C' + (x - w).toFixed(1) + ' ' + ys[a].toFixed(1) + ' ' + (x - w).toFixed(1) + ' ' +
                   ys[b].toFixed(1) + ' ' + (x - 1) + ' ' + ys[b].toFixed(1) + '"></path>');
      }
      svg.innerHTML = paths.join('');
    }
    highlightEdges();
  }
  function nestsFrom(node) {
    const found = [];
    for (let n = node; n; n = n.parentElement && n.parentElement.closest('.nest')) {
      if (n.classList && n.classList.contains('nest')) found.push(n);
    }
    return found;
  }
  function highlightEdges() {
    for (const p of document.querySelectorAll('svg.edges path.hl')) p.classList.remove('hl');
    const row = rowOf.get(selected);
    if (!row || !row.isConnected) return;
    const nest = row.parentElement.closest('.nest');
    const index = nest._rows.indexOf(row);
    for (const p of nest.firstChild.querySelectorAll('path')) {
      if (+p.dataset.f === index || +p.dataset.t === index) p.classList.add('hl');
    }
  }

  const graphEl = $('graph');
  function renderAll() {
    rowOf.clear();
    graphEl.textContent = '';
    const nest = renderNest(root);
    graphEl.appendChild(nest);
    drawEdges(Array.from(graphEl.querySelectorAll('.nest')));
  }

  function setExpanded(inst, open) {
    if (inst.sub < 0 || inst.expanded === open) return;
    inst.expanded = open;
    const row = rowOf.get(inst.id);
    if (!row || !row.isConnected) return;
    row.firstChild.textContent = open ? '\u25be' : '\u25b8';
    const item = row.parentElement;
    if (open) {
      const nest = renderNest(inst);
      item.appendChild(nest);
      drawEdges(Array.from(nest.querySelectorAll('.nest')).concat(nestsFrom(nest)));
    } else {
      const nest = item.querySelector(':scope > .nest');
      if (nest) {
        for (const r of nest.querySelectorAll('.row[data-id]')) rowOf.delete(+r.dataset.id);
        nest.remove();
      }
      drawEdges(nestsFrom(item.parentElement));
    }
  }

  // -- selection and details ---------------------------------------------------
  function select(id) {
    const old = rowOf.get(selected);
    if (old) old.classList.remove('sel');
    selected = id;
    const row = rowOf.get(id);
    if (row) row.classList.add('sel');
    highlightEdges();
    showDetails(insts[id]);
  }
  function reveal(id) {
    const chain = [];
    for (let p = insts[id].parent; p > 0; p = insts[p].parent) chain.push(insts[p]);
    chain.reverse();
    for (const a of chain) setExpanded(a, true);
    const row = rowOf.get(id);
    if (row) row.scrollIntoView({ block: 'center' });
    return row;
  }
  function link(text, id) {
    const a = el('a', 'jump', text);
    a.addEventListener('click', function () { reveal(id); select(id); });
    return a;
  }
  function showDetails(inst) {
    const box = $('tab-node');
    box.textContent = '';
    const op = opOf(inst);
    const kinds = { c: 'module call', f: 'function call', m: 'method call', g: 'get_attr', k: 'constant', o: 'op' };
    const t = el('table');
    function add(k, v) {
      const tr = el('tr');
      tr.appendChild(el('th', '', k));
      const td = el('td');
      if (v instanceof Node) td.appendChild(v); else td.textContent = v;
      tr.appendChild(td);
      t.appendChild(tr);
    }
    add('name', nameOf(inst));
    add('kind', kinds[op.k] || op.k);
    add('target', S[op.t]);
    if (op.k === 'c') {
      add('path', inst.path);
      add('module', '@' + S[op.m]);
    } else if (inst.path) add('in module', inst.path);
    op.r.forEach(function (ti, k) {
      const ty = T[ti];
      const label = op.r.length > 1 ? 'result ' + k : 'result';
      const parts = [];
      if (S[ty[0]]) parts.push(S[ty[0]] + ' ' + S[ty[1]]);
      parts.push(S[ty[3]]);
      add(label, (op.n[k] !== undefined ? S[op.n[k]] + ': ' : '') + parts.join('  '));
      if (S[ty[2]]) add('qparams', S[ty[2]]);
    });
    if (op.w !== undefined) add('parameters', grouped(op.w));
    if (op.x) add('MACs', grouped(op.x) + ' (' + si(op.x) + ')');
    const parent = inst.parent >= 0 ? insts[inst.parent] : root;
    const g = G[inst.gi], base = g.in.length;
    const ins = el('span');
    op.i.forEach(function (r, k) {
      if (k) ins.appendChild(document.createTextNode(', '));
      if (r < base) ins.appendChild(document.createTextNode(S[g.in[r][0]] + ' (input)'));
      else {
        const sib = insts[parent.kids[r - base]];
        ins.appendChild(link(nameOf(sib), sib.id));
      }
    });
    add('reads', ins);
    const users = el('span');
    const myRow = base + inst.oi;
    let count = 0;
    for (const kid of parent.kids) {
      const other = insts[kid];
      if (opOf(other).i.indexOf(myRow) >= 0) {
        if (count++) users.appendChild(document.createTextNode(', '));
        users.appendChild(link(nameOf(other), other.id));
      }
    }
    if (g.out.indexOf(myRow) >= 0) users.appendChild(document.createTextNode((count ? ', ' : '') + 'the output'));
    add('users', users);
    if (op.l !== undefined) {
      const loc = L[op.l];
      add('location', S[loc[0]] + ':' + loc[1] + ':' + loc[2] + (S[loc[3]] ? '  (in ' + S[loc[3]] + ')' : ''));
      if (S[loc[4]]) add('source', el('div', 'src', S[loc[4]]));
    }
    box.appendChild(t);
    showTab('node');
  }

  // -- search ----------------------------------------------------------------
  let haystack = null;
  function search(text) {
    query = text.trim().toLowerCase();
    if (!haystack) {
      haystack = insts.map(function (inst) {
        if (inst.id === 0) return '';
        const op = opOf(inst);
        return (nameOf(inst) + ' ' + op.n.map(function (i) { return S[i]; }).join(' ') + ' ' + S[op.t] + ' ' +
                (op.k === 'c' ? inst.path : '')).toLowerCase();
      });
    }
    for (const id of hitSet) { const r = rowOf.get(id); if (r) r.classList.remove('hit', 'current'); }
    hits = [];
    if (query) for (let i = 1; i < insts.length; i++) if (haystack[i].indexOf(query) >= 0) hits.push(i);
    hitSet = new Set(hits);
    current = -1;
    for (const id of hits) { const r = rowOf.get(id); if (r) r.classList.add('hit'); }
    $('hits').textContent = query ? hits.length + (hits.length === 1 ? ' hit' : ' hits') : '';
    const box = $('tab-results');
    box.textContent = '';
    if (!query) { box.appendChild(el('p', 'muted', 'Type in the search box.')); return; }
    const ul = el('ul');
    for (const id of hits.slice(0, 300)) {
      const inst = insts[id], op = opOf(inst);
      const li = el('li', '', (op.k === 'c' ? inst.path : (inst.path ? inst.path + ' / ' : '') + nameOf(inst)) +
                    '  ' + targetOf(op));
      li.dataset.id = id;
      li.addEventListener('click', function () { goTo(id); });
      ul.appendChild(li);
    }
    box.appendChild(el('p', 'muted', hits.length + ' match' + (hits.length === 1 ? '' : 'es') +
                       (hits.length > 300 ? ' (first 300 listed)' : '')));
    box.appendChild(ul);
    showTab('results');
  }
  function goTo(id) {
    const old = rowOf.get(current);
    if (old) old.classList.remove('current');
    current = id;
    const row = reveal(id);
    if (row) row.classList.add('current');
    select(id);
  }
  function next(step) {
    if (!hits.length) return;
    let k = hits.indexOf(current);
    k = k < 0 ? (step > 0 ? 0 : hits.length - 1) : (k + step + hits.length) % hits.length;
    goTo(hits[k]);
    $('hits').textContent = (k + 1) + '/' + hits.length;
  }
  let timer = 0;
  $('search').addEventListener('input', function (e) {
    clearTimeout(timer);
    const value = e.target.value;
    timer = setTimeout(function () { search(value); }, 120);
  });
  $('search').addEventListener('keydown', function (e) {
    if (e.key === 'Enter') {
      clearTimeout(timer);
      if (e.target.value.trim().toLowerCase() !== query) search(e.target.value);
      next(e.shiftKey ? -1 : 1);
      e.preventDefault();
    } else if (e.key === 'Escape') {
      e.target.value = '';
      search('');
    }
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === '/' && document.activeElement !== $('search')) { $('search').focus(); e.preventDefault(); }
  });

  // -- clicks, tabs, buttons ----------------------------------------------------
  graphEl.addEventListener('click', function (e) {
    const row = e.target.closest('.row[data-id]');
    if (!row) return;
    const inst = insts[+row.dataset.id];
    select(inst.id);
    if (inst.sub >= 0) setExpanded(inst, !inst.expanded);
  });
  function showTab(name) {
    for (const b of document.querySelectorAll('aside nav button')) b.classList.toggle('on', b.dataset.tab === name);
    for (const s of document.querySelectorAll('.tab')) s.classList.toggle('on', s.id === 'tab-' + name);
  }
  for (const b of document.querySelectorAll('aside nav button')) {
    b.addEventListener('click', function () { showTab(b.dataset.tab); });
  }
  $('expand-all').addEventListener('click', function () {
    for (const inst of insts) if (inst.sub >= 0) inst.expanded = true;
    renderAll();
  });
  $('collapse-all').addEventListener('click', function () {
    for (const inst of insts) if (inst.id !== 0 && inst.sub >= 0) inst.expanded = false;
    renderAll();
  });

  // -- the summary ---------------------------------------------------------------
  function renderSummary() {
    const box = $('tab-summary');
    const s = D.summary;
    const totals = el('div', 'totals');
    totals.appendChild(el('div', '', 'Input: ' + (s.inputs || '-') + ' ' + s.dtypes));
    totals.appendChild(el('div', '', 'Total params: ' + grouped(s.params) + ' (' +
                          (s.param_bytes / 1048576).toFixed(2) + ' MiB)'));
    totals.appendChild(el('div', '', 'Total MACs: ' + grouped(s.macs) + ' (' + si(s.macs) + 'MACs)' +
                          (s.dynamic ? ', at size 1 of every dynamic dim' : '')));
    box.appendChild(totals);
    const t = el('table');
    const head = el('tr');
    for (const [h, cls] of [['Module', ''], ['Class', ''], ['Output shape', ''], ['Params', 'num'], ['MACs', 'num']]) {
      head.appendChild(el('th', cls, h));
    }
    t.appendChild(head);
    for (const r of s.rows) {
      const tr = el('tr', 'srow');
      const name = r[0] ? r[0].slice(r[0].lastIndexOf('.') + 1) : D.name;
      const cell = el('td', '', '\u00a0'.repeat(2 * r[2]) + name);
      cell.title = r[0] || D.name;
      tr.appendChild(cell);
      tr.appendChild(el('td', '', r[1]));
      tr.appendChild(el('td', '', r[3]));
      tr.appendChild(el('td', 'num', grouped(r[5])));
      tr.appendChild(el('td', 'num', si(r[6])));
      tr.dataset.path = r[0];
      tr.addEventListener('click', function () {
        const id = byPath.get(r[0]);
        if (id !== undefined) goTo(id); else graphEl.scrollTop = 0;
      });
      t.appendChild(tr);
    }
    box.appendChild(t);
  }

  const title = $('title');
  title.textContent = D.name + ' ';
  title.appendChild(el('span', 'muted', D['class'] + ' \u00b7 ' + si(D.summary.params) + ' params \u00b7 ' +
                       si(D.summary.macs) + ' MACs'));
  renderSummary();
  renderAll();
  const took = performance.now() - started;
  window.__viewReady = { ms: took, instances: insts.length, rows: document.querySelectorAll('.row').length };
  $('status').textContent = (insts.length - 1) + ' ops in the call tree; rendered in ' + took.toFixed(0) + ' ms';
  document.body.dataset.ready = '1';
})();
"""
