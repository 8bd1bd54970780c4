// The web board of `retrodb serve`: one page, talking to the JSON API under /api/v1.
// The page keeps no game logic: the server's board view (/api/v1/tables/NAME/board) draws the
// position as the user set it up (SVG, each move a <g class="move" data-move="NAME">), says who
// is to move or who has won, and lists the moves with their values, best first. Playing against
// the table is taking the first of those moves on the table's turns. Under the board a chart
// draws the values of the positions played since the position was set (the view's `value` and
// `remoteness` of each); a digraph's picture is drawn here, two moves out, from the view and a
// batch probe of the positions its moves make.
'use strict';

const API = '/api/v1/tables';
const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
// `play`: null when walking the game tree; while playing against the table, the step of the
// history at which play began, whether the user moved there, and the two sides' names.
// `track`: the value history the chart draws, ply 0 the position set, then one entry a move.
// `wide`: the batch probe of the positions the shown digraph position's moves make.
const state = {
  tables: [], table: null, step: 0, last: 0, view: null, play: null, timer: null, track: [], wide: null,
};

// A move's child value is for the opponent; for the player making the move it is the flip.
const forMover = (v) => (v === 'loss' ? 'win' : v === 'win' ? 'loss' : 'draw');
const words = { win: 'wins', draw: 'draws', loss: 'loses' };
const you = { win: 'win', draw: 'draw', loss: 'lose' };
// How long the table waits before answering, so that a person sees their own move first.
const TABLE_DELAY_MS = 300;
const SVG_NS = 'http://www.w3.org/2000/svg';

// An SVG element with these attributes (and text).
function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

// A player's colour on the pictures, named in the player's name (`Left (L, blue)`); '' where
// the name has none (a digraph's players).
const colourOf = (name) => (/\bblue\b/.test(name) ? 'blue' : /\bred\b/.test(name) ? 'red' : '');

// Who has won a finished position: the player to move where its value is a win, else the other.
const winnerOf = (view) => (!view.outcome ? '' : view.value === 'win' ? view.to_move : view.opponent);

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

// " in N" where the table holds remoteness (not null), else nothing.
const inPlies = (r) => (r === undefined || r === null ? '' : ` in ${r}`);

// A move's result for the player making it, in the API's words (`result`, `plies`: docs/NOTATION.md,
// "Values of moves").
function moveText(m) {
  return words[m.result] + inPlies(m.plies) +
    (m.game_value === undefined ? '' : ` (then ${m.game_value})`);
}

// Whether the user is to move now (only while playing): the turns alternate from the step at
// which play began.
function userToMove() {
  const p = state.play;
  return p !== null && ((state.step - p.step0) % 2 === 0) === p.userFirst;
}

function verdictText(view) {
  if (view.outcome) return view.outcome;
  return `${view.to_move} ${words[view.value]}${inPlies(view.remoteness)}`;
}

// The line about the game against the table: what the table claims with its last move, then
// whose turn it is or who won. Its data attributes say the same for programs (the browser test).
function showPlay(view) {
  const p = state.play;
  const el = $('play-status');
  const plies = state.step - p.step0;
  const t = p.lastTable;
  let text = t ? `The table played ${t.move}: it ${moveText(t)}. ` : '';
  el.dataset.plies = String(plies);
  el.dataset.tableMove = t ? t.move : '';
  el.dataset.tableValue = t ? forMover(t.value) : '';
  el.dataset.tableRemoteness = t && t.plies !== null ? String(t.plies) : '';
  if (view.moves.length === 0) {
    // The value at a finished position is for the player who would move there.
    const userWon = (view.value === 'win') === userToMove();
    el.dataset.turn = 'over';
    el.dataset.winner = userWon ? 'user' : 'table';
    el.dataset.winnerColour = colourOf(winnerOf(view));
    text += `${userWon ? 'You won' : 'The table won'} after ${plies} move(s) from where play began.`;
  } else if (userToMove()) {
    el.dataset.turn = 'user';
    el.dataset.winner = '';
    el.dataset.winnerColour = '';
    text += `Your move (${p.you}): you ${you[view.value]}${inPlies(view.remoteness)} if both play their best.`;
  } else {
    el.dataset.turn = 'table';
    el.dataset.winner = '';
    el.dataset.winnerColour = '';
    text += `The table (${p.table}) is to move…`;
  }
  el.textContent = text;
}

function render(view) {
  state.view = view;
  $('position').value = view.position;
  const verdict = $('verdict');
  verdict.dataset.value = view.value;
  verdict.dataset.over = view.outcome ? 'true' : 'false';
  verdict.dataset.winnerColour = colourOf(winnerOf(view));
  verdict.textContent = verdictText(view);
  // The first move is the best one; the rest (game_value, the game's own notes) is listed.
  const skip = new Set(['position', 'index', 'value', 'remoteness', 'game_over', 'moves', 'best', 'to_move',
    'opponent', 'outcome', 'svg', 'stored_image']);
  $('extra').textContent = Object.entries(view)
    .filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${k.replace('_', ' ')}: ${v}`)
    .join('; ');
  $('stored').textContent = view.stored_image
    ? `The table holds this board as its symmetric image ${view.stored_image}; the values are the same.`
    : '';
  $('stored').hidden = !view.stored_image;

  const playing = state.play !== null;
  const hints = !playing || $('hints').checked;
  const clickable = !playing || userToMove();
  drawPicture(view, hints, clickable);
  drawHistory(state.track, hints);
  if (isDigraph(state.table)) widen(view, hints, clickable);

  const body = $('moves').tBodies[0];
  body.replaceChildren();
  for (const m of view.moves) {
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
    tr.addEventListener('click', () => choose(m));
    body.appendChild(tr);
  }
  $('moves').hidden = !hints;
  $('legend').hidden = !hints;

  $('back').disabled = playing || state.step === 0;
  $('forward').disabled = playing || state.step >= state.last;
  $('position-go').disabled = playing;
  $('play-mover').textContent = `play ${view.to_move}`;
  $('play-other').textContent = `play ${view.opponent}`;
  for (const id of ['play-prompt', 'play-mover', 'play-other']) $(id).hidden = playing;
  $('play-mover').disabled = view.moves.length === 0;
  $('play-other').disabled = view.moves.length === 0;
  $('play-stop').hidden = !playing;
  $('hints-label').hidden = !playing;
  $('play-status').hidden = !playing;
  if (playing) showPlay(view);
  document.title = `${state.table.name}: ${view.position} — retrodb`;
}

// The picture of `view`: the server's SVG, or a digraph's neighbourhood drawn here (with the
// batch probe of its moves' positions once it has come); each move a clickable, coloured mark.
function drawPicture(view, hints, clickable) {
  const picture = $('picture');
  if (isDigraph(state.table)) {
    const wide = state.wide && state.wide.position === view.position ? state.wide.probes : [];
    picture.replaceChildren(neighbourhood(view, wide, hints));
  } else {
    picture.innerHTML = view.svg;
  }
  for (const g of picture.querySelectorAll('g.move[data-move]')) {
    const m = view.moves.find((x) => x.move === g.dataset.move);
    if (m) markMove(g, m, hints, clickable);
  }
}

function markMove(g, m, hints, clickable) {
  const v = forMover(m.value);
  g.dataset.value = v;
  if (hints) g.classList.add(v);
  if (!clickable) g.classList.add('disabled');
  const title = g.querySelector('title') || g.appendChild(svgEl('title', {}));
  title.textContent = hints ? `${m.move}: ${moveText(m)}` : m.move;
  g.addEventListener('mouseenter', () => {
    $('hover').textContent = hints ? `move ${m.move}: ${moveText(m)} (then ${m.position})` : `move ${m.move}`;
  });
  g.addEventListener('click', () => choose(m));
}

// ---- The value history ----------------------------------------------------------------------

// One entry of the history: the position a move made (or the one set, at ply 0) and its value.
function trackEntry(view, move) {
  return {
    move, position: view.position, value: view.value, remoteness: view.remoteness,
    to_move: view.to_move, opponent: view.opponent,
  };
}

// The history after showing `view`: one more entry after a move, the browser's entry's own
// after back or forward (each history entry keeps the track that led to it), a new one when
// the position was set another way.
function nextTrack(view, how, move) {
  if (how === 'push' && move !== undefined) return state.track.concat([trackEntry(view, move)]);
  const kept = how === 'pop' || how === 'replace' ? (history.state && history.state.track) || state.track : null;
  const ends = kept && kept.length > 0 && kept[kept.length - 1].position === view.position;
  return ends ? kept : [trackEntry(view, '')];
}

const CHART = { w: 460, h: 170, left: 10, right: 28, top: 20, bottom: 26 };

// A point's height, from -1 to 1: up where the player to move at ply 0 wins, down where the
// other does, the middle line a draw; the quickest end (remoteness 0) is the whole half, the
// slowest in the chart a quarter of it.
function chartScore(e, ply, slowest) {
  const v = ply % 2 === 0 ? e.value : forMover(e.value);
  if (v === 'draw') return 0;
  const r = e.remoteness == null ? 0 : e.remoteness;
  const height = 1 - (0.75 * r) / Math.max(slowest, 1);
  return v === 'win' ? height : -height;
}

// Draws the history into #history-chart: one `circle.ply` a move played (`data-ply`,
// `data-move`, `data-position`, `data-value` for the player who moved, `data-remoteness` of the
// position it made), a `circle.start` for ply 0, joined by a line.
function drawHistory(track, hints) {
  const svg = $('history-chart');
  svg.replaceChildren();
  $('history').dataset.plies = String(track.length - 1);
  if (track.length === 0) return;
  const c = CHART;
  const plies = Math.max(track.length - 1, 8);
  const x = (k) => c.left + (k * (c.w - c.left - c.right)) / plies;
  const half = (c.h - c.top - c.bottom) / 2;
  const mid = c.top + half;
  const slowest = Math.max(0, ...track.map((e) => e.remoteness || 0));
  const y = (e, k) => (hints ? mid - half * chartScore(e, k, slowest) : mid);
  chartFrame(svg, track[0], x, plies, mid, half);
  const points = track.map((e, k) => `${x(k).toFixed(1)},${y(e, k).toFixed(1)}`).join(' ');
  svg.appendChild(svgEl('polyline', { class: 'trace', points }));
  track.forEach((e, k) => svg.appendChild(chartPoint(e, k, x(k), y(e, k), track[0], hints)));
}

// The chart's bands, middle line, labels and ply axis.
function chartFrame(svg, first, x, plies, mid, half) {
  const c = CHART;
  const right = c.w - c.right;
  svg.appendChild(svgEl('rect', { class: 'band up', x: c.left, y: mid - half, width: right - c.left, height: half }));
  svg.appendChild(svgEl('rect', { class: 'band down', x: c.left, y: mid, width: right - c.left, height: half }));
  svg.appendChild(svgEl('line', { class: 'draw-line', x1: c.left, y1: mid, x2: right, y2: mid }));
  svg.appendChild(svgEl('text', { class: 'label', x: c.left + 4, y: mid - half + 12 }, `\u25b2 ${first.to_move} wins`));
  svg.appendChild(svgEl('text', { class: 'label', x: c.left + 4, y: mid + half - 4 }, `\u25bc ${first.opponent} wins`));
  svg.appendChild(svgEl('text', { class: 'label', x: right + 3, y: mid + 4 }, 'draw'));
  const every = plies <= 16 ? 1 : plies <= 40 ? 5 : 10;
  for (let k = 0; k <= plies; k += every) {
    svg.appendChild(svgEl('text', { class: 'tick', x: x(k), y: c.h - 10 }, String(k)));
  }
  svg.appendChild(svgEl('text', { class: 'label', x: right + 3, y: c.h - 10 }, 'ply'));
}

// One point of the chart, coloured as the moves are: by its value for the player who made the
// move (ply 0, the position set, hollow).
function chartPoint(e, k, cx, cy, first, hints) {
  const mover = k % 2 === 1 ? first.to_move : first.opponent;
  const v = forMover(e.value);
  const attrs = { cx: cx.toFixed(1), cy: cy.toFixed(1), r: k === 0 ? 4 : 5, 'data-ply': k, 'data-position': e.position };
  if (e.remoteness != null) attrs['data-remoteness'] = e.remoteness;
  let title;
  if (k === 0) {
    Object.assign(attrs, { class: 'start', 'data-value': e.value });
    title = `ply 0, the position set: ${e.to_move} ${hints ? words[e.value] + inPlies(e.remoteness) : 'to move'}`;
  } else {
    Object.assign(attrs, { class: hints ? `ply ${v}` : 'ply', 'data-move': e.move, 'data-value': v });
    const left = e.remoteness == null ? '' : `, ${e.remoteness} plies left`;
    title = `ply ${k}: ${mover} played ${e.move}` + (hints ? `: it ${words[v]}${left}` : '');
  }
  const dot = svgEl('circle', attrs);
  dot.appendChild(svgEl('title', {}, title));
  return dot;
}

// ---- A digraph's neighbourhood ----------------------------------------------------------------

// At most this many of the token's successors, and of theirs, are drawn (the rest are in the list).
const WIDE = { children: 16, grandchildren: 24 };

const isDigraph = (t) => t !== null && t.game.startsWith('digraph:');

// The probes of the positions `view`'s moves make (one batch), then the picture drawn again
// with them, if `view` is still the one shown.
async function widen(view, hints, clickable) {
  if (state.wide && state.wide.position === view.position) return;
  const kids = children(view).map((m) => m.position);
  if (kids.length === 0) return;
  let probes;
  try {
    const r = await fetch(`${API}/${enc(state.table.name)}/batch`, { method: 'POST', body: kids.join('\n') });
    if (!r.ok) return;
    probes = (await r.text()).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  } catch (e) {
    return;
  }
  if (state.view !== view) return;
  state.wide = { position: view.position, probes: probes.filter((p) => Array.isArray(p.moves)) };
  drawPicture(view, hints, clickable);
}

// The moves to distinct positions, at most WIDE.children of them.
function children(view) {
  const seen = new Set();
  return view.moves.filter((m) => !seen.has(m.position) && seen.add(m.position)).slice(0, WIDE.children);
}

// The vertices to draw, by depth (0: the token, 1: its moves', 2: theirs, each once at its
// least depth) and the edges between them.
function layers(view, probes) {
  const depth = new Map([[view.position, 0]]);
  const rows = [[{ id: view.position, value: view.value, remoteness: view.remoteness }], [], []];
  const edges = [];
  const add = (from, v, d, extra) => {
    if (!depth.has(v.position) && (d === 1 || rows[2].length < WIDE.grandchildren)) {
      depth.set(v.position, d);
      rows[d].push({ id: v.position, value: v.value, remoteness: v.remoteness, ...extra });
    }
    if (depth.has(v.position)) edges.push([from, v.position]);
  };
  for (const m of children(view)) add(view.position, m, 1, { move: m.move });
  for (const p of probes) {
    if (depth.get(p.position) !== 1) continue;
    for (const m of p.moves) add(p.position, m, 2, {});
  }
  const more = probes.reduce((n, p) => n + p.moves.filter((m) => !depth.has(m.position)).length, 0);
  return { rows, edges, depth, more };
}

// The SVG of a digraph position: three columns, the token, the vertices it moves to (the moves,
// clickable) and the vertices those move to. Each vertex but the token is coloured as a move
// onto it is (its value for the player who moves the token there) and labelled with it, `W2`:
// that player wins in 2 plies; `data-vertex-value` and `data-remoteness` are the API's, for the
// player to move there.
function neighbourhood(view, probes, hints) {
  const { rows, edges, depth, more } = layers(view, probes);
  const gap = Math.max(rows[1].length, rows[2].length) > 12 ? 24 : 34;
  const height = 50 + Math.max(1, rows[1].length, rows[2].length) * gap + 30;
  const svg = svgEl('svg', { xmlns: SVG_NS, width: 460, height, viewBox: `0 0 460 ${height}`, 'font-family': 'sans-serif' });
  svg.appendChild(svgEl('rect', { width: '100%', height: '100%', fill: 'white' }));
  svg.appendChild(arrowDef());
  const at = new Map();
  const xs = [50, 220, 390];
  rows.forEach((row, d) => row.forEach((v, k) => at.set(v.id, [xs[d], 30 + (height - 80) / 2 + (k - (row.length - 1) / 2) * gap])));
  for (const [from, to] of edges) svg.appendChild(edge(at.get(from), at.get(to), depth.get(to) <= depth.get(from)));
  rows.forEach((row, d) => row.forEach((v) => svg.appendChild(vertex(v, d, at.get(v.id), hints))));
  const n = view.moves.length;
  const note = `token on ${view.position}: ${n} move(s); ${rows[2].length} more vertices two moves out` +
    (more > 0 ? ` (${more} edge(s) beyond)` : '') + (n > rows[1].length ? `; ${n - rows[1].length} move(s) only in the list` : '');
  svg.appendChild(svgEl('text', { x: 8, y: height - 10, 'font-size': 13 }, note));
  return svg;
}

function arrowDef() {
  const defs = svgEl('defs', {});
  const marker = svgEl('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.appendChild(svgEl('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#555' }));
  defs.appendChild(marker);
  return defs;
}

// An edge from `a` to `b`, stopping short of the vertices; one back to the same or an earlier
// column bends, so that it does not run over the others.
function edge([x1, y1], [x2, y2], back) {
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
  const [ax, ay, bx, by] = [x1 + ux * 16, y1 + uy * 16, x2 - ux * 17, y2 - uy * 17];
  const bend = back ? 40 : 0;
  const [qx, qy] = [(ax + bx) / 2 - uy * bend, (ay + by) / 2 + ux * bend];
  const d = `M ${ax.toFixed(1)} ${ay.toFixed(1)} Q ${qx.toFixed(1)} ${qy.toFixed(1)} ${bx.toFixed(1)} ${by.toFixed(1)}`;
  return svgEl('path', { class: 'edge', d, fill: 'none', stroke: back ? '#bbb' : '#777', 'marker-end': 'url(#arrow)' });
}

// A vertex at depth `d`: the token, a move (`g.move`, which drawPicture makes clickable) or a
// vertex two moves out.
function vertex(v, d, [x, y], hints) {
  const mover = forMover(v.value);
  const g = svgEl('g', { class: d === 0 ? 'vertex token' : d === 1 ? 'vertex move' : `vertex${hints ? ' ' + mover : ''}` });
  Object.assign(g.dataset, { vertex: v.id, depth: String(d), vertexValue: v.value });
  if (v.remoteness != null) g.dataset.remoteness = String(v.remoteness);
  if (d === 1) g.dataset.move = v.move;
  if (d === 1) g.appendChild(svgEl('circle', { class: 'hit', cx: x, cy: y, r: 16, fill: 'transparent' }));
  g.appendChild(svgEl('circle', { class: 'mark', cx: x, cy: y, r: d === 0 ? 20 : 14, fill: d === 0 ? '#ffe08a' : '#bbbbbb', stroke: '#333' }));
  g.appendChild(svgEl('text', { x, y: y + 4, 'font-size': 11, 'text-anchor': 'middle', 'pointer-events': 'none' }, v.id));
  if (d > 0 && hints) g.appendChild(svgEl('text', { class: 'vlabel', x: x + 18, y: y + 4, 'pointer-events': 'none' }, shortValue(v)));
  if (d === 2) g.appendChild(svgEl('title', {}, `vertex ${v.id}: the player to move there ${hints ? words[v.value] + inPlies(v.remoteness) : ''}`));
  return g;
}

// A vertex's value for the player who moves the token onto it, short: `W3`, `L1`, `D` (the
// plies count that move, as the move list's "wins in 3" does).
function shortValue(v) {
  const m = forMover(v.value);
  const r = v.remoteness == null || m === 'draw' ? '' : String(v.remoteness + 1);
  return { win: 'W', draw: 'D', loss: 'L' }[m] + r;
}

// Shows `position` of the current table. `how`: 'push' (a new step), 'replace' (the first
// view), or 'pop' (the browser moved in its history; the URL is already right).
async function show(position, how, move) {
  const t = state.table;
  let view;
  try {
    const values = t.game_values && $('values').checked ? '&value=true' : '';
    view = await (await fetchOk(`${API}/${enc(t.name)}/board?position=${enc(position)}${values}`)).json();
  } catch (e) {
    showError(e.message);
    return;
  }
  showError('');
  const url = `?table=${enc(t.name)}&position=${enc(view.position)}`;
  state.track = nextTrack(view, how, move);
  if (how === 'push') {
    state.step += 1;
    state.last = state.step;
    history.pushState({ table: t.name, position: view.position, step: state.step, track: state.track }, '', url);
  } else if (how === 'replace') {
    history.replaceState({ table: t.name, position: view.position, step: state.step, track: state.track }, '', url);
  }
  render(view);
  if (state.play !== null && view.moves.length > 0 && !userToMove()) {
    state.timer = setTimeout(tableMove, TABLE_DELAY_MS);
  }
}

// A click on a move: walking, it is played; playing, only on the user's turn.
function choose(m) {
  if (state.play !== null && !userToMove()) return;
  if (state.play !== null) state.play.lastTable = null;
  return show(m.position, 'push', m.move);
}

// The table's turn: its best move, the first of the list.
function tableMove() {
  state.timer = null;
  const view = state.view;
  if (state.play === null || userToMove() || view.moves.length === 0) return;
  state.play.lastTable = view.moves[0];
  show(view.moves[0].position, 'push', view.moves[0].move);
}

// Begins a game against the table from the position shown; `userFirst`: the user takes the
// side to move.
function startPlay(userFirst) {
  const view = state.view;
  state.play = {
    step0: state.step,
    userFirst,
    you: userFirst ? view.to_move : view.opponent,
    table: userFirst ? view.opponent : view.to_move,
    lastTable: null,
  };
  render(view);
  if (!userFirst) state.timer = setTimeout(tableMove, TABLE_DELAY_MS);
}

function stopPlay() {
  if (state.timer !== null) clearTimeout(state.timer);
  state.timer = null;
  state.play = null;
  if (state.view) render(state.view);
}

function selectTable(name) {
  state.table = state.tables.find((t) => t.name === name) || state.tables[0];
  $('table').value = state.table.name;
  $('game').textContent = `${state.table.game}: ${state.table.positions.toLocaleString()} positions` +
    (state.table.remoteness ? ', with remoteness' : ', values only (no remoteness)');
  $('values-label').hidden = !state.table.game_values;
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
    stopPlay();
    selectTable(e.target.value);
    show(state.table.start || '', 'push');
  });
  $('position-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (state.play === null) show($('position').value.trim(), 'push');
  });
  $('back').addEventListener('click', () => history.back());
  $('forward').addEventListener('click', () => history.forward());
  $('restart').addEventListener('click', () => {
    stopPlay();
    show(state.table.start || '', 'push');
  });
  $('play-mover').addEventListener('click', () => startPlay(true));
  $('play-other').addEventListener('click', () => startPlay(false));
  $('play-stop').addEventListener('click', stopPlay);
  $('hints').addEventListener('change', () => state.view && render(state.view));
  $('values').addEventListener('change', () => state.view && show(state.view.position, 'replace'));
  window.addEventListener('popstate', (e) => {
    const s = e.state;
    if (!s) return;
    stopPlay();
    state.step = s.step;
    if (!state.table || s.table !== state.table.name) selectTable(s.table);
    show(s.position, 'pop');
  });
}

init();
