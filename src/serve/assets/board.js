// The web board of `retrodb serve`: one page, talking to the JSON API under /api/v1.
// The page keeps no game logic: the server draws the position (SVG, each move a
// <g class="move" data-move="NAME">) and answers its value and its moves' values.
'use strict';

const API = '/api/v1/tables';
const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
const state = { tables: [], table: null, step: 0, last: 0, probe: null };

// A move's child value is for the opponent; for the player making the move it is the flip.
const forMover = (v) => (v === 'loss' ? 'win' : v === 'win' ? 'loss' : 'draw');
const words = { win: 'wins', draw: 'draws', loss: 'loses' };

async function fetchOk(url) {
  const r = await fetch(url);
  if (!r.ok) {
    const body = await r.json().catch(() => null);
    throw new Error(body && body.detail ? body.detail : `${r.status} ${r.statusText}`);
  }
  return r;
}

function showError(text) {
  $('error').textContent = text;
  $('error').hidden = !text;
}

// The remoteness of a move for the player making it: one ply more than its child's.
function moveText(m) {
  const v = forMover(m.value);
  return m.remoteness === undefined ? words[v] : `${words[v]} in ${m.remoteness + 1}`;
}

function render(probe, svg) {
  state.probe = probe;
  $('position').value = probe.position;
  const verdict = $('verdict');
  verdict.dataset.value = probe.value;
  verdict.textContent = `the player to move ${words[probe.value]}` +
    (probe.remoteness === undefined ? '' : ` in ${probe.remoteness}`) +
    (probe.moves.length === 0 ? ' (no move left)' : '');
  const skip = new Set(['position', 'index', 'value', 'remoteness', 'moves']);
  $('extra').textContent = Object.entries(probe)
    .filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${k.replace('_', ' ')}: ${v}`)
    .join('; ');

  const picture = $('picture');
  picture.innerHTML = svg;
  for (const g of picture.querySelectorAll('g.move[data-move]')) {
    const m = probe.moves.find((x) => x.move === g.dataset.move);
    if (!m) continue;
    const v = forMover(m.value);
    g.classList.add(v);
    g.dataset.value = v;
    const title = g.querySelector('title') || g.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'title'));
    title.textContent = `${m.move}: ${moveText(m)}`;
    g.addEventListener('mouseenter', () => { $('hover').textContent = `move ${m.move}: ${moveText(m)} (then ${m.position})`; });
    g.addEventListener('click', () => play(m.position));
  }

  const body = $('moves').tBodies[0];
  body.replaceChildren();
  for (const m of probe.moves) {
    const v = forMover(m.value);
    const tr = document.createElement('tr');
    tr.className = v;
    tr.dataset.move = m.move;
    tr.dataset.value = v;
    tr.dataset.position = m.position;
    const cells = [m.move, moveText(m), m.position];
    cells.forEach((text, i) => {
      const td = document.createElement('td');
      td.textContent = text;
      td.className = ['name', 'value', 'child'][i];
      tr.appendChild(td);
    });
    tr.addEventListener('click', () => play(m.position));
    body.appendChild(tr);
  }
  $('back').disabled = state.step === 0;
  $('forward').disabled = state.step >= state.last;
  document.title = `${state.table.name}: ${probe.position} — retrodb`;
}

// Shows `position` of the current table. `how`: 'push' (a new step), 'replace' (the first
// view), or 'pop' (the browser moved in its history; the URL is already right).
async function show(position, how) {
  const t = state.table;
  let probe;
  let svg;
  try {
    const q = `position=${enc(position)}`;
    const [a, b] = await Promise.all([
      fetchOk(`${API}/${enc(t.name)}?${q}`),
      fetchOk(`${API}/${enc(t.name)}/picture?${q}`),
    ]);
    probe = await a.json();
    svg = await b.text();
  } catch (e) {
    showError(e.message);
    return;
  }
  showError('');
  const url = `?table=${enc(t.name)}&position=${enc(probe.position)}`;
  if (how === 'push') {
    state.step += 1;
    state.last = state.step;
    history.pushState({ table: t.name, position: probe.position, step: state.step }, '', url);
  } else if (how === 'replace') {
    history.replaceState({ table: t.name, position: probe.position, step: state.step }, '', url);
  }
  render(probe, svg);
}

function play(position) {
  return show(position, 'push');
}

function selectTable(name) {
  state.table = state.tables.find((t) => t.name === name) || state.tables[0];
  $('table').value = state.table.name;
  $('game').textContent = `${state.table.game}: ${state.table.positions.toLocaleString()} positions` +
    (state.table.remoteness ? ', with remoteness' : '');
}

async function init() {
  let data;
  try {
    data = await (await fetchOk(API)).json();
  } catch (e) {
    showError(e.message);
    return;
  }
  state.tables = data.tables;
  for (const t of state.tables) {
    const o = document.createElement('option');
    o.value = t.name;
    o.textContent = t.name;
    $('table').appendChild(o);
  }
  const params = new URLSearchParams(location.search);
  selectTable(params.get('table'));
  const h = history.state;
  if (h && typeof h.step === 'number') {
    state.step = h.step;
    state.last = h.step;
  }
  await show(params.get('position') || state.table.start || '', 'replace');

  $('table').addEventListener('change', (e) => {
    selectTable(e.target.value);
    show(state.table.start || '', 'push');
  });
  $('position-form').addEventListener('submit', (e) => {
    e.preventDefault();
    play($('position').value.trim());
  });
  $('back').addEventListener('click', () => history.back());
  $('forward').addEventListener('click', () => history.forward());
  $('restart').addEventListener('click', () => play(state.table.start || ''));
  window.addEventListener('popstate', (e) => {
    const s = e.state;
    if (!s) return;
    state.step = s.step;
    if (!state.table || s.table !== state.table.name) selectTable(s.table);
    show(s.position, 'pop');
  });
}

init();
