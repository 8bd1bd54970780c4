// The web board of `retrodb serve`: one page, talking to the JSON API under /api/v1.
// The page keeps no game logic: the server's board view (/api/v1/tables/NAME/board) draws the
// position as the user set it up (SVG, each move a <g class="move" data-move="NAME">), says who
// is to move or who has won, and lists the moves with their values, best first. Playing against
// the table is taking the first of those moves on the table's turns.
'use strict';

const API = '/api/v1/tables';
const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
// `play`: null when walking the game tree; while playing against the table, the step of the
// history at which play began, whether the user moved there, and the two sides' names.
const state = { tables: [], table: null, step: 0, last: 0, view: null, play: null, timer: null };

// A move's child value is for the opponent; for the player making the move it is the flip.
const forMover = (v) => (v === 'loss' ? 'win' : v === 'win' ? 'loss' : 'draw');
const words = { win: 'wins', draw: 'draws', loss: 'loses' };
const you = { win: 'win', draw: 'draw', loss: 'lose' };
// How long the table waits before answering, so that a person sees their own move first.
const TABLE_DELAY_MS = 300;

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
    text += `${userWon ? 'You won' : 'The table won'} after ${plies} move(s) from where play began.`;
  } else if (userToMove()) {
    el.dataset.turn = 'user';
    el.dataset.winner = '';
    text += `Your move (${p.you}): you ${you[view.value]}${inPlies(view.remoteness)} if both play their best.`;
  } else {
    el.dataset.turn = 'table';
    el.dataset.winner = '';
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
  const picture = $('picture');
  picture.innerHTML = view.svg;
  for (const g of picture.querySelectorAll('g.move[data-move]')) {
    const m = view.moves.find((x) => x.move === g.dataset.move);
    if (!m) continue;
    const v = forMover(m.value);
    g.dataset.value = v;
    if (hints) g.classList.add(v);
    if (!clickable) g.classList.add('disabled');
    const title = g.querySelector('title') || g.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'title'));
    title.textContent = hints ? `${m.move}: ${moveText(m)}` : m.move;
    g.addEventListener('mouseenter', () => {
      $('hover').textContent = hints ? `move ${m.move}: ${moveText(m)} (then ${m.position})` : `move ${m.move}`;
    });
    g.addEventListener('click', () => choose(m));
  }

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

// Shows `position` of the current table. `how`: 'push' (a new step), 'replace' (the first
// view), or 'pop' (the browser moved in its history; the URL is already right).
async function show(position, how) {
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
  if (how === 'push') {
    state.step += 1;
    state.last = state.step;
    history.pushState({ table: t.name, position: view.position, step: state.step }, '', url);
  } else if (how === 'replace') {
    history.replaceState({ table: t.name, position: view.position, step: state.step }, '', url);
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
  return show(m.position, 'push');
}

// The table's turn: its best move, the first of the list.
function tableMove() {
  state.timer = null;
  const view = state.view;
  if (state.play === null || userToMove() || view.moves.length === 0) return;
  state.play.lastTable = view.moves[0];
  show(view.moves[0].position, 'push');
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
