// Tenjiku Shogi web board: draws the game views of `tenjiku serve` (docs/web-api.md) and sends
// the person's moves. The server owns the rules: the page only offers the moves listed in the
// live view's `legal` and shows the server's reasons verbatim when something is refused.
'use strict';

// ---------------------------------------------------------------- constants and helpers

const N = 16;           // files and ranks
const S = 60;           // square size in SVG units
const M = 30;           // margin for the coordinates
const SIZE = N * S + 2 * M;
const SVGNS = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefghijklmnop';
const PREFS_KEY = 'tenjiku.board.prefs';
// The engine's score of a won game (search/src/alphabeta.rs MATE): a win n plies away scores
// MATE - n; anything beyond MATE_BOUND is such a win or loss.
const MATE = 100000;
const MATE_BOUND = 99800;

// Pentagon of a piece pointing up (towards the top of the screen), centred on the square.
const TILE = 'M0 -27.6 L19.5 -19.6 L24 26.4 L-24 26.4 L-19.5 -19.6 Z';

// Kanji of each Hodges abbreviation, for the captured-piece lists (the board's pieces bring
// their own `kanji`); a promoted piece (`+X`) shows the kanji of the type it moves as.
const KANJI = {
  K: '王将', GG: '大将', VG: '副将', RG: '飛将', BG: '角将', FEg: '奔鷲', Q: '奔王', SE: '飛鷲',
  HF: '角鷹', WB: '水牛', CS: '車兵', FiD: '火鬼', LH: '獅鷹', Ln: '獅子', DK: '龍王', DH: '龍馬',
  R: '飛車', B: '角行', Kr: '麒麟', Ph: '鳳凰', DE: '酔象', BT: '盲虎', FL: '猛豹', G: '金将',
  S: '銀将', C: '銅将', VM: '竪行', SM: '横行', RC: '反車', VS: '竪兵', SS: '横兵', L: '香車',
  N: '桂馬', I: '鉄将', D: '犬', P: '歩兵', CP: '太子', FS: '飛鹿', FB: '奔猪', FO: '飛牛',
  WH: '白駒', W: '鯨鯢', MG: '雑将', HT: '四天',
};
const PROMOTES_TO = {
  RG: 'GG', BG: 'VG', Q: 'FEg', SE: 'RG', HF: 'BG', WB: 'FiD', CS: 'HT', Ln: 'LH', DK: 'SE',
  DH: 'HF', R: 'DK', B: 'DH', Kr: 'Ln', Ph: 'Q', DE: 'CP', BT: 'FS', FL: 'B', G: 'R', S: 'VM',
  C: 'SM', VM: 'FO', SM: 'FB', RC: 'W', VS: 'CS', SS: 'WB', L: 'WH', N: 'SS', I: 'VS', D: 'MG',
  P: 'G',
};

const $ = (id) => document.getElementById(id);
const fileOf = (sq) => sq.charCodeAt(0) - 97;
const rankOf = (sq) => parseInt(sq.slice(1), 10) - 1;
const sqName = (f, r) => FILES[f] + (r + 1);
/** Hodges name of a square: file 16..1 from Black's left, rank a..p from the top. */
const hodgesOf = (sq) => `${16 - fileOf(sq)}${FILES[15 - rankOf(sq)]}`;
const other = (c) => (c === 'black' ? 'white' : 'black');
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** An SVG element with attributes (null/undefined values are left out). */
function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** An HTML element: h('td', {class: 'x'}, 'text', child, ...). */
function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function kanjiOfAbbr(abbr) {
  const promoted = abbr.startsWith('+');
  const base = promoted ? abbr.slice(1) : abbr;
  return (promoted ? KANJI[PROMOTES_TO[base]] : KANJI[base]) || abbr;
}

/** The squares a move walks through: [from, ...via, to] ([] for the null pass). */
const movePath = (m) => (m.null_pass ? [] : [m.from, ...m.via, m.to]);
const isPrefix = (prefix, path) => prefix.length <= path.length && prefix.every((s, i) => s === path[i]);
const samePath = (a, b) => a.length === b.length && isPrefix(a, b);

/** The squares of a CECP move text (`h8g9,g9g10+` → [h8, g9, g10]); null for `@@@@`. */
function cecpPath(text) {
  if (!text || text === '@@@@') return null;
  const squares = [];
  for (const leg of text.replace(/[+=]$/, '').split(',')) {
    const m = /^([a-p]\d{1,2})([a-p]\d{1,2})$/.exec(leg);
    if (!m) return null;
    if (!squares.length) squares.push(m[1]);
    squares.push(m[2]);
  }
  return squares;
}

// ---------------------------------------------------------------- state

const state = {
  info: null,          // GET /api/info
  gameId: null,
  live: null,          // the latest live view of the game
  browsePly: null,     // null: showing the live view; else the ply of `browseView`
  browseView: null,
  browseToken: 0,      // answers to older browse requests are dropped
  thinking: null,      // latest `thinking` event (plus `side`, `stale`)
  path: [],            // squares clicked so far for the move being entered
  hover: null,         // square under the mouse
  flipped: false,
  drag: null,          // {from, x0, y0, started} while a piece is pressed
  suppressClick: false,
  dialog: false,
  busy: false,         // a move is on its way to the server
  es: null,            // EventSource of the game
  esRetry: null,
  formFilledFor: null, // the game whose settings the form shows
  prefs: { labels: 'kanji', coords: 'cecp', threats: false, zoom: 100 },
};

const shown = () => (state.browsePly === null ? state.live : state.browseView);
const isLive = () => state.browsePly === null;
const shownPly = () => (state.browsePly === null ? (state.live ? state.live.ply : 0) : state.browsePly);

/** Legal moves the person may make now (none while browsing). */
const legalMoves = () => (isLive() && state.live ? state.live.legal || [] : []);
const movesWithPrefix = (prefix) => legalMoves().filter((m) => !m.null_pass && isPrefix(prefix, movePath(m)));
const exactMoves = (path) => legalMoves().filter((m) => !m.null_pass && samePath(path, movePath(m)));

/** For a partial path: next square → the legal moves that continue through it. */
function nextSquares(path) {
  const next = new Map();
  if (!path.length) return next;
  for (const m of movesWithPrefix(path)) {
    const p = movePath(m);
    if (p.length > path.length) {
      const s = p[path.length];
      if (!next.has(s)) next.set(s, []);
      next.get(s).push(m);
    }
  }
  return next;
}

function pieceAt(view, sq) {
  return view && view.board ? view.board.find((p) => p.sq === sq) || null : null;
}

// ---------------------------------------------------------------- server calls

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** JSON call; a refusal throws ApiError with the server's `error` text. */
async function api(method, url, body) {
  const opts = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, opts);
  } catch (e) {
    throw new ApiError(`Cannot reach the server (${e.message}).`, 0);
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = null;
  }
  if (!res.ok) {
    const why = data && typeof data.error === 'string' ? data.error : `${res.status} ${res.statusText} ${text.slice(0, 200)}`.trim();
    throw new ApiError(why, res.status);
  }
  return data;
}

/** Runs an action, showing any error in #message. */
async function act(fn) {
  try {
    await fn();
  } catch (e) {
    showError(e instanceof ApiError ? e.message : `Error: ${e.message}`);
    if (!(e instanceof ApiError)) console.error(e);
  }
}

const gameUrl = (suffix = '') => `/api/games/${encodeURIComponent(state.gameId)}${suffix}`;

// ---------------------------------------------------------------- messages

function setMessage(text, kind = '') {
  const m = $('message');
  m.textContent = text;
  m.className = kind;
  m.title = text;
}
const showError = (text) => setMessage(text, 'error');

/** "1-0 — Black wins: resignation" (the server's reason names the winner). */
function resultText(o) {
  if (o.reason) return `${o.result} — ${o.reason}`;
  const who = o.result === '1-0' ? 'Black wins' : o.result === '0-1' ? 'White wins'
    : /^1\/2/.test(o.result) ? 'Draw' : '';
  return who ? `${o.result} (${who})` : o.result;
}

/** One line about whose turn it is. */
function statusText(v) {
  if (!v) return '';
  if (v.outcome) return `Game over: ${resultText(v.outcome)}`;
  const side = cap(v.side_to_move);
  const check = v.in_check ? ' — check!' : '';
  if (v.mode === 'play') {
    if (v.side_to_move === v.human) return `Your move (${side})${check}`;
    return `${side} (engine) ${v.thinking ? 'is thinking…' : 'to move'}${check}`;
  }
  return `${side} to move${check}${v.thinking ? ' — engine analysing' : ''}`;
}

// ---------------------------------------------------------------- the board

const boardEl = () => $('board');
const rects = new Map(); // CECP square → its rect

/** Top-left corner of a square's cell on the screen, given the flip. */
function cellXY(sq) {
  const f = fileOf(sq);
  const r = rankOf(sq);
  const col = state.flipped ? 15 - f : f;
  const row = state.flipped ? r : 15 - r;
  return [M + col * S, M + row * S];
}
const centre = (sq) => {
  const [x, y] = cellXY(sq);
  return [x + S / 2, y + S / 2];
};

/** The square under an SVG point, or null. */
function squareAt(x, y) {
  const col = Math.floor((x - M) / S);
  const row = Math.floor((y - M) / S);
  if (col < 0 || col >= N || row < 0 || row >= N) return null;
  return state.flipped ? sqName(15 - col, row) : sqName(col, 15 - row);
}

function svgPoint(evt) {
  const b = boardEl();
  const pt = b.createSVGPoint();
  pt.x = evt.clientX;
  pt.y = evt.clientY;
  return pt.matrixTransform(b.getScreenCTM().inverse());
}

/** Builds the static parts: squares, layers, arrow heads. */
function buildBoard() {
  const b = boardEl();
  b.setAttribute('viewBox', `0 0 ${SIZE} ${SIZE}`);
  b.replaceChildren();
  const defs = svg('defs');
  ['pv0', 'pv1', 'pv2'].forEach((cls) => {
    const mk = svg('marker', { id: `head-${cls}`, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 2.6,
      markerHeight: 2.6, orient: 'auto-start-reverse', markerUnits: 'strokeWidth' });
    mk.append(svg('path', { d: 'M0 0 L10 5 L0 10 z', class: `arrow-dot ${cls}` }));
    defs.append(mk);
  });
  b.append(defs);
  b.append(svg('rect', { class: 'frame', x: 0, y: 0, width: SIZE, height: SIZE, rx: 6 }));
  const squares = svg('g', { id: 'squares' });
  for (let r = 0; r < N; r++) {
    for (let f = 0; f < N; f++) {
      const sq = sqName(f, r);
      const zone = r < 5 || r > 10 ? 'sq zone' : 'sq';
      const rect = svg('rect', { class: zone, 'data-sq': sq, width: S, height: S });
      rects.set(sq, rect);
      squares.append(rect);
    }
  }
  b.append(squares);
  for (const name of ['hoshi', 'coords', 'marks', 'pieces', 'dests', 'arrows', 'drag']) {
    b.append(svg('g', { id: `layer-${name}` }));
  }
  layoutBoard();
}

/** Places squares and coordinates for the current flip and coordinate system. */
function layoutBoard() {
  const b = boardEl();
  b.dataset.flipped = String(state.flipped);
  for (const [sq, rect] of rects) {
    const [x, y] = cellXY(sq);
    rect.setAttribute('x', x);
    rect.setAttribute('y', y);
  }
  // Dots where the promotion zones' borders cross files 5|6 and 11|12 from each side.
  const hoshi = $('layer-hoshi');
  hoshi.replaceChildren();
  for (const i of [5, 11]) for (const j of [5, 11]) hoshi.append(svg('circle', { class: 'hoshi', cx: M + i * S, cy: M + j * S, r: 4 }));
  // Coordinates on all four sides.
  const coords = $('layer-coords');
  coords.replaceChildren();
  const hodges = state.prefs.coords === 'hodges';
  for (let i = 0; i < N; i++) {
    const f = state.flipped ? 15 - i : i;           // file shown in column i
    const r = state.flipped ? i : 15 - i;           // rank shown in row i (from the top)
    const fileLabel = hodges ? String(16 - f) : FILES[f];
    const rankLabel = hodges ? FILES[15 - r] : String(r + 1);
    const cx = M + i * S + S / 2;
    coords.append(svg('text', { class: 'coord', x: cx, y: M / 2 }, fileLabel));
    coords.append(svg('text', { class: 'coord', x: cx, y: SIZE - M / 2 }, fileLabel));
    coords.append(svg('text', { class: 'coord', x: M / 2, y: cx }, rankLabel));
    coords.append(svg('text', { class: 'coord', x: SIZE - M / 2, y: cx }, rankLabel));
  }
}

/** One piece: a pentagon pointing at the opponent, with kanji or English label. */
function pieceEl(p) {
  const cls = ['piece'];
  if (p.promoted) cls.push('promoted');
  if (p.royal) cls.push('royal');
  if (state.drag && state.drag.started && state.drag.from === p.sq) cls.push('dragging');
  const [x, y] = centre(p.sq);
  const g = svg('g', { class: cls.join(' '), 'data-sq': p.sq, 'data-abbr': p.abbr, 'data-color': p.color,
    transform: `translate(${x} ${y})` });
  // Black's pieces point up when Black is at the bottom.
  const down = (p.color === 'white') !== state.flipped;
  const turn = down ? 'rotate(180)' : null;
  g.append(svg('path', { class: 'tile', d: TILE, transform: turn, 'stroke-linejoin': 'round' }));
  if (p.royal) g.append(svg('circle', { class: 'royal-dot', cx: 0, cy: down ? 20 : -20, r: 3 }));
  if (state.prefs.labels === 'kanji') {
    // Kanji turn with the piece, as on a real board; two characters stacked.
    const chars = [...String(p.kanji || '').replace(/[\s\u3000]/g, '')];
    const t = svg('g', { transform: turn });
    if (chars.length >= 2) {
      t.append(svg('text', { class: 'kanji', x: 0, y: -6.5, 'font-size': 18 }, chars[0]));
      t.append(svg('text', { class: 'kanji', x: 0, y: 13.5, 'font-size': 18 }, chars[1]));
    } else {
      t.append(svg('text', { class: 'kanji', x: 0, y: 3, 'font-size': 24 }, chars[0] || p.abbr));
    }
    g.append(t);
  } else {
    // English stays upright so it can be read from either side.
    const n = p.abbr.length;
    const size = n <= 2 ? 21 : n === 3 ? 17 : 14;
    g.append(svg('text', { class: 'abbr', x: 0, y: down ? -3 : 3, 'font-size': size }, p.abbr));
  }
  return g;
}

/** Marks under the pieces: the threat view. */
function renderMarks(view) {
  const layer = $('layer-marks');
  layer.replaceChildren();
  if (!state.prefs.threats || !view || !view.threats) return;
  for (const side of ['black', 'white']) {
    const t = view.threats[side];
    if (!t) continue;
    const tc = `t-${side}`;
    for (const sq of t.burn_zones || []) {
      const [x, y] = cellXY(sq);
      layer.append(svg('rect', { class: `mark threat-burn ${tc}`, 'data-sq': sq, x: x + 2, y: y + 2, width: S - 4, height: S - 4 }));
    }
    for (const sq of t.capturable || []) {
      const [x, y] = centre(sq);
      layer.append(svg('circle', { class: `mark threat-cap ${tc}`, 'data-sq': sq, cx: x, cy: y, r: S * 0.46 }));
    }
    for (const sq of t.royal_attackers || []) {
      const [x, y] = cellXY(sq);
      layer.append(svg('path', { class: `mark threat-royal ${tc}`, 'data-sq': sq,
        d: `M${x + 1} ${y + 1} h${S * 0.42} L${x + 1} ${y + 1 + S * 0.42} z` }));
    }
  }
}

function crossMark(sq, cls, size) {
  const [x, y] = cellXY(sq);
  // In the top right corner of the square.
  const cx = x + S - size - 3;
  const cy = y + size + 3;
  return svg('path', { class: `mark ${cls}`, 'data-sq': sq,
    d: `M${cx - size} ${cy - size} L${cx + size} ${cy + size} M${cx + size} ${cy - size} L${cx - size} ${cy + size}` });
}

/** The moves a hovered (or stopped-at) square stands for, to preview captures and burns. */
function previewMoves() {
  const path = state.path;
  if (!path.length) return [];
  const next = nextSquares(path);
  if (state.hover && next.has(state.hover)) {
    const np = [...path, state.hover];
    const exact = exactMoves(np);
    return exact.length ? exact : next.get(state.hover);
  }
  return path.length >= 2 ? exactMoves(path) : [];
}

/** Marks above the pieces: destinations, previews, what the last move took. */
function renderDests(view) {
  const layer = $('layer-dests');
  layer.replaceChildren();
  if (!view) return;
  // What the last move captured (red ×) and burned (orange flame dot).
  if (view.last) {
    for (const c of view.last.captured || []) {
      const m = crossMark(c.sq, 'captured', 6);
      m.append(svg('title', {}, `captured ${c.abbr}`));
      layer.append(m);
    }
    for (const c of view.last.burned || []) {
      // An orange square with a flame in its top left corner.
      const [x, y] = cellXY(c.sq);
      layer.append(svg('rect', { class: 'mark burned-sq', 'data-sq': c.sq, x: x + 3, y: y + 3, width: S - 6, height: S - 6, rx: 6 }));
      layer.append(svg('path', { class: 'mark burned', 'data-sq': c.sq,
        d: `M${x + 13} ${y + 4} C${x + 25} ${y + 14} ${x + 22} ${y + 24} ${x + 13} ${y + 26} C${x + 4} ${y + 24} ${x + 1} ${y + 14} ${x + 13} ${y + 4} z` }));
    }
  }
  const path = state.path;
  if (!path.length) return;
  // Preview: what the candidate move would capture and burn.
  const pm = previewMoves();
  const caps = new Set(pm.flatMap((m) => m.captures || []));
  const burns = new Set(pm.flatMap((m) => m.burns || []));
  for (const sq of burns) {
    const [x, y] = cellXY(sq);
    layer.append(svg('rect', { class: 'mark preview-burn', 'data-sq': sq, x: x + 3, y: y + 3, width: S - 6, height: S - 6, rx: 6 }));
  }
  for (const sq of caps) layer.append(crossMark(sq, 'preview-capture', 9));
  // Destinations: the next square of every legal path through the squares clicked so far.
  const next = nextSquares(path);
  for (const sq of next.keys()) {
    const [x, y] = centre(sq);
    if (path.length === 1 && sq === path[0]) {
      layer.append(svg('circle', { class: 'dest pass', 'data-sq': sq, cx: x, cy: y, r: S * 0.44 }));
    } else if (pieceAt(view, sq)) {
      layer.append(svg('circle', { class: 'dest capture', 'data-sq': sq, cx: x, cy: y, r: S * 0.43 }));
    } else {
      layer.append(svg('circle', { class: 'dest', 'data-sq': sq, cx: x, cy: y, r: S * 0.15 }));
    }
  }
  // "Stop here": the last square clicked ends a move, and other moves go on from it.
  if (path.length >= 2 && exactMoves(path).length) {
    const sq = path[path.length - 1];
    const [x, y] = cellXY(sq);
    layer.append(svg('rect', { class: 'dest stop', 'data-sq': sq, x: x + 3, y: y + 3, width: S - 6, height: S - 6, rx: 5 }));
    layer.append(svg('text', { class: 'stop-label', x: x + S / 2, y: y + S - 5 }, 'stop'));
  }
}

/** The engine's principal variation, first three moves, as numbered arrows. */
function renderArrows() {
  const layer = $('layer-arrows');
  layer.replaceChildren();
  const t = currentThinking();
  const v = state.live;
  if (!isLive() || !t || t.stale || !v || t.version !== v.version || !Array.isArray(t.pv)) return;
  const arrows = [];
  t.pv.slice(0, 3).forEach((text, i) => {
    const path = cecpPath(text);
    if (!path) return;
    const pts = path.map(centre);
    const cls = `arrow pv${i}`;
    if (pts.length === 2 && path[0] === path[1]) {
      // A piece's pass: a ring on the piece.
      arrows.push(svg('circle', { class: cls, cx: pts[0][0], cy: pts[0][1], r: S * 0.3 }));
    } else {
      // Stop the line short of the last centre so the head lands inside the square.
      const [ax, ay] = pts[pts.length - 2];
      const [bx, by] = pts[pts.length - 1];
      const len = Math.hypot(bx - ax, by - ay) || 1;
      const cut = Math.min(S * 0.22, len / 3);
      pts[pts.length - 1] = [bx - ((bx - ax) / len) * cut, by - ((by - ay) / len) * cut];
      arrows.push(svg('polyline', { class: cls, points: pts.map((p) => p.join(',')).join(' '),
        'marker-end': `url(#head-pv${i})` }));
    }
    const [sx, sy] = centre(path[0]);
    const badge = svg('g', { transform: `translate(${sx - S * 0.3} ${sy - S * 0.3})` });
    badge.append(svg('circle', { class: `arrow-dot pv${i}`, r: 9 }));
    badge.append(svg('text', { class: 'arrow-num' }, String(i + 1)));
    arrows.push(badge);
  });
  // Draw the first move last, on top.
  arrows.reverse().forEach((a) => layer.append(a));
}

function renderBoard() {
  const view = shown();
  const b = boardEl();
  const last = view && view.last ? new Set(movePath(view.last).filter(Boolean)) : new Set();
  const checked = new Set();
  if (view && view.in_check) {
    for (const p of view.board) if (p.royal && p.color === view.side_to_move) checked.add(p.sq);
  }
  const [from, ...rest] = state.path;
  const onPath = new Set(rest);
  for (const [sq, rect] of rects) {
    rect.classList.toggle('last', last.has(sq));
    rect.classList.toggle('selected', sq === from);
    rect.classList.toggle('path', onPath.has(sq));
    rect.classList.toggle('check', checked.has(sq));
  }
  const pieces = $('layer-pieces');
  pieces.replaceChildren(...(view ? view.board.map(pieceEl) : []));
  renderMarks(view);
  renderDests(view);
  renderArrows();
  b.dataset.flipped = String(state.flipped);
}

/** The line under the board: the hovered square, its piece, and the candidate move. */
function renderHoverInfo() {
  const el = $('hover-info');
  const sq = state.hover;
  const view = shown();
  if (!sq || !view) {
    el.textContent = state.path.length ? hintForPath() : '';
    return;
  }
  const names = state.prefs.coords === 'hodges' ? `${hodgesOf(sq)} (${sq})` : `${sq} (${hodgesOf(sq)})`;
  const parts = [names];
  const p = pieceAt(view, sq);
  if (p) {
    let s = `${cap(p.color)} ${p.name} ${String(p.kanji || '').trim()} [${p.abbr}]`;
    if (p.promoted) s += `, promoted: moves as ${p.moves_as}`;
    if (p.royal) s += ', royal';
    parts.push(s);
  }
  if (view.last) {
    for (const c of view.last.captured || []) if (c.sq === sq) parts.push(`last move captured ${c.abbr} here`);
    for (const c of view.last.burned || []) if (c.sq === sq) parts.push(`last move burned ${c.abbr} here`);
  }
  const next = nextSquares(state.path);
  if (next.has(sq)) {
    const pm = previewMoves();
    const texts = [...new Set(pm.map((m) => m.hodges))];
    if (texts.length) parts.push(`→ ${texts.slice(0, 3).join(' / ')}${texts.length > 3 ? ' …' : ''}`);
  }
  el.textContent = parts.join(' · ');
}

function hintForPath() {
  const path = state.path;
  if (path.length >= 2 && exactMoves(path).length) return 'Click the dashed square again to stop there, or a marked square to go on.';
  if (path.length >= 2) return 'Click where the piece goes next.';
  return '';
}

// ---------------------------------------------------------------- side panel

function currentThinking() {
  const t = state.thinking;
  if (t) return t;
  const v = state.live;
  if (v && v.analysis && typeof v.analysis === 'object') {
    return { ...v.analysis, version: v.analysis.version ?? v.version, side: v.side_to_move };
  }
  return null;
}

function formatScore(t) {
  const stm = t.side || (state.live && state.live.side_to_move) || 'black';
  const lines = [];
  const hasWdl = Array.isArray(t.wdl) && t.wdl.length === 3;
  // An MCTS search's final report carries its result as win/draw/loss only (score_cp 0).
  if (typeof t.score_cp === 'number' && !(hasWdl && t.score_cp === 0 && !t.depth)) {
    const s = t.score_cp;
    const winner = cap(s > 0 ? stm : other(stm));
    if (Math.abs(s) > MATE_BOUND) {
      // Alpha-beta scores a win n plies away as ±(MATE - n).
      const n = MATE - Math.abs(s);
      lines.push(`${winner} wins within ${n} pl${n === 1 ? 'y' : 'ies'}`);
    } else {
      lines.push(s === 0 ? 'Even (0 cp)' : `${winner} better by ${Math.abs(s)} cp`);
    }
  }
  if (hasWdl) {
    const sum = t.wdl.reduce((a, b) => a + b, 0) || 1;
    const pct = t.wdl.map((x) => `${Math.round((100 * x) / sum)}%`);
    lines.push(`${cap(stm)} (to move): win ${pct[0]} · draw ${pct[1]} · loss ${pct[2]}`);
  }
  return lines;
}

function renderThinking() {
  const box = $('thinking');
  const v = state.live;
  box.replaceChildren();
  if (!v) return;
  const engine = v.engine_name || v.engine || 'engine';
  box.append(h('p', {}, h('b', {}, engine), v.thinking ? ' — thinking…' : ''));
  const t = currentThinking();
  if (!t) {
    box.append(h('p', { class: 'muted' }, v.mode === 'analysis' || v.thinking ? 'Waiting for the engine…' : 'No engine output yet.'));
    return;
  }
  const body = h('div', { class: t.stale ? 'stale' : '' });
  if (t.stale) body.append(h('p', {}, 'Its last search, before its move:'));
  const [scoreLine, wdlLine] = formatScore(t);
  if (scoreLine) body.append(h('p', { class: 'score' }, scoreLine));
  if (wdlLine) body.append(h('p', {}, wdlLine));
  const stats = [];
  if (t.depth) stats.push(`depth ${t.depth}`);
  if (typeof t.nodes === 'number') stats.push(`${t.nodes.toLocaleString('en')} ${v.engine && /mcts/.test(v.engine) ? 'visits' : 'nodes'}`);
  if (typeof t.time_ms === 'number') stats.push(`${(t.time_ms / 1000).toFixed(1)} s`);
  if (stats.length) body.append(h('p', { class: 'muted' }, stats.join(' · ')));
  const pv = Array.isArray(t.pv_hodges) && t.pv_hodges.length ? t.pv_hodges : t.pv;
  if (Array.isArray(pv) && pv.length) body.append(h('p', { class: 'pv' }, h('span', { class: 'muted' }, 'PV: '), pv.join('  ')));
  if (Array.isArray(t.top) && t.top.length) {
    const table = h('table', {}, h('tr', {}, h('th', {}, 'Move'), h('th', {}, 'Visits'), h('th', {}, 'Prior'), h('th', {}, 'Q')));
    for (const m of t.top.slice(0, 8)) {
      const prior = typeof m.prior === 'number' ? `${(m.prior * (m.prior <= 1 ? 100 : 1)).toFixed(1)}%` : '';
      const q = typeof m.q === 'number' ? (m.q >= 0 ? '+' : '') + m.q.toFixed(3) : '';
      table.append(h('tr', {}, h('td', {}, m.hodges || m.move), h('td', {}, m.visits ?? ''), h('td', {}, prior), h('td', {}, q)));
    }
    body.append(table);
  }
  box.append(body);
}

let movesKey = '';
function renderMoves() {
  const v = state.live;
  const ol = $('moves');
  const key = v ? `${v.id}:${v.version}:${v.moves.length}` : '';
  if (key !== movesKey) {
    movesKey = key;
    ol.replaceChildren(...(v ? v.moves : []).map((m) => {
      const li = h('li', { 'data-ply': m.ply, class: `${m.color}-move`, title: m.move }, m.hodges);
      return li;
    }));
  }
  const ply = shownPly();
  let current = null;
  for (const li of ol.children) {
    const on = Number(li.dataset.ply) === ply;
    li.classList.toggle('current', on);
    if (on) current = li;
  }
  // Keep the current move visible inside the list (without scrolling the page).
  if (current) {
    const top = current.offsetTop - ol.offsetTop;
    if (top < ol.scrollTop || top + current.offsetHeight > ol.scrollTop + ol.clientHeight) {
      ol.scrollTop = top - ol.clientHeight / 2;
    }
  } else if (ply === 0) {
    ol.scrollTop = 0;
  }
  const live = isLive();
  $('live').disabled = live;
  $('next').disabled = live;
  $('prev').disabled = !v || ply === 0;
  $('first').disabled = !v || ply === 0;
  $('truncate').hidden = live;
  const note = $('browse-note');
  note.hidden = live;
  note.textContent = live ? '' : `Showing the position after ply ${ply} of ${v ? v.ply : '?'} (read only). ← → to step, End for live.`;
}

function renderTaken() {
  const v = state.live;
  for (const side of ['black', 'white']) {
    const el = $(`taken-${side}`);
    const list = (v && v.taken && v.taken[side]) || [];
    const counts = new Map();
    for (const a of list) counts.set(a, (counts.get(a) || 0) + 1);
    el.replaceChildren(...[...counts].map(([abbr, n]) => {
      const kanji = state.prefs.labels === 'kanji';
      const label = kanji ? kanjiOfAbbr(abbr) : abbr;
      const span = h('span', { class: `mini${abbr.startsWith('+') ? ' promoted' : ''}`, 'data-abbr': abbr,
        title: abbr, lang: kanji ? 'ja' : null }, label + (n > 1 ? `×${n}` : ''));
      return span;
    }));
    if (!list.length) el.append(h('span', { class: 'muted' }, '—'));
  }
}

function renderControls() {
  const v = state.live;
  const legal = legalMoves();
  const pieceP = piecePassMoves();
  const nullPass = legal.find((m) => m.null_pass);
  const pass = $('pass');
  pass.disabled = !(pieceP.length || nullPass);
  pass.textContent = pieceP.length ? 'Pass (piece)' : 'Pass';
  $('undo').disabled = !v || !v.moves.length;
  $('resign').disabled = !v || !!v.outcome; // analysis: the side to move resigns
  $('result').textContent = v && v.outcome ? resultText(v.outcome) : '';
  $('legend').hidden = !state.prefs.threats;
  if (v) {
    $('game-label').textContent = `game ${v.id} · ${v.mode === 'play' ? `you play ${v.human}` : 'analysis'} · ${v.engine_name || v.engine || ''}`;
  }
}

function render() {
  const v = state.live;
  renderBoard();
  renderHoverInfo();
  renderThinking();
  renderMoves();
  renderTaken();
  renderControls();
  const d = document.body.dataset;
  if (v) {
    d.version = String(v.version);
    d.status = v.thinking ? 'thinking' : 'ready';
    d.gameId = String(v.id);
  }
  d.ply = String(shownPly());
}

// ---------------------------------------------------------------- views and events

/** Takes a live view from a POST answer or a `state` event. Older versions are dropped unless
 *  `fresh` (the first view of an event stream is the server's current one: after a server
 *  restart the numbering may have started again). */
function acceptView(v, fresh = false) {
  if (!v || String(v.id) !== state.gameId) return;
  const old = state.live;
  if (old && v.version < old.version && !fresh) return;
  const changed = !old || v.version !== old.version;
  state.live = v;
  if (changed) {
    state.path = [];
    closeDialog();
    const t = state.thinking;
    if (t && t.version < v.version) {
      // Right after the engine's move (play mode) its last search stays on show, greyed;
      // otherwise an older search is dropped.
      const engineJustMoved = v.mode === 'play' && !t.stale && t.side && t.side !== v.side_to_move;
      state.thinking = engineJustMoved ? { ...t, stale: true } : null;
    }
    // A browsed position stays valid only while the moves before it are unchanged.
    if (state.browsePly !== null) {
      const same = old && state.browsePly <= v.moves.length
        && old.moves.slice(0, state.browsePly).every((m, i) => v.moves[i] && v.moves[i].move === m.move);
      if (!same || state.browsePly >= v.ply) {
        state.browsePly = null;
        state.browseView = null;
      }
    }
    setMessage(statusText(v));
  } else if (!$('message').classList.contains('error')) {
    setMessage(statusText(v));
  }
  // A search that reached us before its view: now we know whose it is.
  if (state.thinking && state.thinking.version === v.version && !state.thinking.side) {
    state.thinking.side = v.side_to_move;
  }
  if (state.formFilledFor !== state.gameId) {
    fillForm(v);
    state.formFilledFor = state.gameId;
    state.flipped = v.mode === 'play' && v.human === 'white';
    layoutBoard();
  }
  render();
}

function acceptThinking(t) {
  const v = state.live;
  if (!v || typeof t.version !== 'number' || t.version < v.version) return; // stale search
  // `side`: whose view score_cp and wdl are from (known once we have the view searched).
  state.thinking = { ...t, side: t.version === v.version ? v.side_to_move : null };
  renderThinking();
  renderArrows();
}

function connectEvents() {
  if (state.es) state.es.close();
  clearTimeout(state.esRetry);
  const id = state.gameId;
  const es = new EventSource(gameUrl('/events'));
  state.es = es;
  const mine = () => state.es === es && state.gameId === id;
  let first = true; // the first state event of each connection (EventSource reconnects by itself)
  es.addEventListener('open', () => {
    if (!mine()) return;
    first = true;
    setConnected(true);
  });
  es.addEventListener('state', (e) => {
    if (!mine()) return;
    try { acceptView(JSON.parse(e.data), first); } catch (err) { console.error('bad state event', err); }
    first = false;
  });
  es.addEventListener('thinking', (e) => {
    if (!mine()) return;
    try { acceptThinking(JSON.parse(e.data)); } catch (err) { console.error('bad thinking event', err); }
  });
  es.addEventListener('error', (e) => {
    if (!mine()) return;
    if (e.data) {
      // The server's own `event: error`.
      let text = e.data;
      try { text = JSON.parse(e.data).error || text; } catch (_) { /* keep the raw text */ }
      showError(text);
      return;
    }
    // The connection broke. EventSource retries by itself unless it gave up (CLOSED).
    setConnected(false);
    if (es.readyState === EventSource.CLOSED) {
      state.esRetry = setTimeout(() => resync(id), 3000);
    }
  });
}

/** After the event stream gave up: check the game still exists, then reconnect. */
async function resync(id) {
  if (state.gameId !== id) return;
  try {
    const v = await api('GET', gameUrl());
    acceptView(v, true);
    connectEvents();
  } catch (e) {
    if (e.status === 404) {
      showError(`Game ${id} is no longer on the server (was it restarted?). Start a new game.`);
      $('game-label').textContent = `game ${id} — gone`;
    } else {
      state.esRetry = setTimeout(() => resync(id), 3000);
    }
  }
}

function setConnected(ok) {
  document.body.classList.toggle('offline', !ok);
  if (!ok) $('game-label').textContent = 'connection lost — reconnecting…';
  else renderControls();
}

/** Shows a game (from a POST answer or a GET) and follows its events. */
function openGame(v) {
  state.gameId = String(v.id);
  state.live = null;
  state.thinking = null;
  state.browsePly = null;
  state.browseView = null;
  state.path = [];
  const hash = `#game=${encodeURIComponent(state.gameId)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  $('save-record').href = gameUrl('/record');
  $('save-record').setAttribute('download', `tenjiku-game-${state.gameId}.txt`);
  connectEvents();
  acceptView(v);
}

function hashGameId() {
  const m = /(?:^#|&)game=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

// ---------------------------------------------------------------- moving

function clearSelection() {
  state.path = [];
  closeDialog();
  renderBoard();
  renderHoverInfo();
  renderControls();
}

function piecePassMoves() {
  const p = state.path;
  return p.length === 1 ? exactMoves([p[0], p[0]]).filter((m) => m.pass) : [];
}

/** A click on a square (or a drop): select, extend the path, or finish a move. */
function onSquare(sq) {
  if (state.dialog) {
    clearSelection();
    return;
  }
  const v = state.live;
  if (!v || state.busy) return;
  if (!isLive()) {
    setMessage('This is an earlier position: press Live (or End) to move.');
    return;
  }
  const path = state.path;
  if (path.length) {
    // Clicking the "stop here" square again ends the shorter move.
    if (path.length >= 2 && sq === path[path.length - 1]) {
      const exact = exactMoves(path);
      if (exact.length) return finish(exact);
    }
    const next = nextSquares(path);
    if (next.has(sq)) {
      const np = [...path, sq];
      const exact = exactMoves(np);
      const longer = next.get(sq).filter((m) => movePath(m).length > np.length);
      if (path.length === 1 && sq === path[0]) {
        state.path = np;
        return finish(exact); // the piece's own pass: asks first
      }
      if (exact.length && !longer.length) {
        state.path = np;
        return finish(exact);
      }
      state.path = np;
      renderBoard();
      renderHoverInfo();
      renderControls();
      return;
    }
    if (path.length === 1 && sq === path[0]) {
      clearSelection();
      return;
    }
  }
  if (movesWithPrefix([sq]).length) {
    state.path = [sq];
    renderBoard();
    renderHoverInfo();
    renderControls();
    return;
  }
  const p = pieceAt(v, sq);
  if (p && !v.legal.length) {
    setMessage(v.outcome ? 'The game is over.' : v.thinking ? 'The engine is thinking; wait for its move.' : statusText(v));
  } else if (p && p.color === v.side_to_move && v.legal.length) {
    setMessage(`The ${p.name} on ${state.prefs.coords === 'hodges' ? hodgesOf(sq) : sq} has no legal move.`);
  }
  clearSelection();
}

/** The clicked path is a whole move (or a promotion choice, or a piece pass). */
function finish(moves) {
  if (!moves.length) return clearSelection();
  const v = state.live;
  const p = pieceAt(v, moves[0].from);
  const name = p ? p.name : 'piece';
  renderBoard();
  const promo = moves.find((m) => m.promote);
  const stay = moves.find((m) => !m.promote);
  if (promo && stay) {
    ask(`Promote the ${name}?`, [
      { id: 'dialog-promote', label: 'Promote', run: () => submit(promo.move) },
      { id: 'dialog-stay', label: 'Stay', run: () => submit(stay.move) },
      { id: 'dialog-cancel', label: 'Cancel', run: clearSelection },
    ]);
    return;
  }
  const m = moves[0];
  if (m.pass) {
    const burns = (m.burns || []).length;
    ask(`Pass with the ${name}${burns ? `, burning ${burns} piece${burns > 1 ? 's' : ''}` : ''}?`, [
      { id: 'dialog-pass', label: 'Pass', run: () => submit(m.move) },
      { id: 'dialog-cancel', label: 'Cancel', run: clearSelection },
    ]);
    return;
  }
  submit(m.move);
}

function ask(text, buttons) {
  state.dialog = true;
  $('dialog-text').textContent = text;
  $('dialog-buttons').replaceChildren(...buttons.map((b) => {
    const btn = h('button', { id: b.id, type: 'button' }, b.label);
    btn.addEventListener('click', () => {
      closeDialog();
      b.run();
    });
    return btn;
  }));
  $('dialog').hidden = false;
  $('dialog-buttons').firstChild.focus();
}

function closeDialog() {
  state.dialog = false;
  $('dialog').hidden = true;
}

/** Sends a move (CECP text from `legal`, or what the person typed). */
async function submit(text) {
  state.path = [];
  state.busy = true; // no second move from the board until the server has answered
  renderBoard();
  renderHoverInfo();
  try {
    await act(async () => {
      const v = await api('POST', gameUrl('/move'), { move: text });
      acceptView(v);
    });
  } finally {
    state.busy = false;
  }
}

// ---------------------------------------------------------------- drag and drop

function onPointerDown(e) {
  if (e.button !== 0 || state.dialog || state.busy || !isLive()) return;
  const rect = e.target.closest && e.target.closest('rect.sq');
  if (!rect) return;
  const sq = rect.dataset.sq;
  if (state.path.length && nextSquares(state.path).has(sq)) return; // a destination: plain click
  if (!movesWithPrefix([sq]).length) return;
  state.drag = { from: sq, x0: e.clientX, y0: e.clientY, started: false, ghost: null };
}

function onPointerMove(e) {
  const d = state.drag;
  if (!d) return;
  if (!d.started) {
    if (Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < 6) return;
    d.started = true;
    state.path = [d.from];
    renderBoard();
    const piece = $('layer-pieces').querySelector(`.piece[data-sq="${d.from}"]`);
    if (piece) {
      d.ghost = piece.cloneNode(true);
      d.ghost.classList.remove('dragging');
      d.ghost.classList.add('ghost');
      $('layer-drag').append(d.ghost);
    }
  }
  if (d.ghost) {
    const pt = svgPoint(e);
    d.ghost.setAttribute('transform', `translate(${pt.x} ${pt.y})`);
  }
  const pt = svgPoint(e);
  const over = squareAt(pt.x, pt.y);
  if (over !== state.hover) {
    state.hover = over;
    renderDests(shown());
    renderHoverInfo();
  }
}

function onPointerUp(e) {
  const d = state.drag;
  state.drag = null;
  if (!d || !d.started) return;
  $('layer-drag').replaceChildren();
  state.suppressClick = true;
  setTimeout(() => { state.suppressClick = false; }, 0);
  const pt = svgPoint(e);
  const target = squareAt(pt.x, pt.y);
  if (target && target !== d.from) onSquare(target);
  else renderBoard(); // dropped back: the piece stays selected
}

// ---------------------------------------------------------------- browsing the move list

async function browse(ply) {
  const live = state.live;
  if (!live) return;
  ply = Math.max(0, Math.min(ply, live.ply));
  if (ply === live.ply) return goLive();
  const token = ++state.browseToken;
  await act(async () => {
    const v = await api('GET', gameUrl(`/view?ply=${ply}`));
    if (token !== state.browseToken) return;
    state.browsePly = ply;
    state.browseView = v;
    state.path = [];
    closeDialog();
    render();
  });
}

function goLive() {
  state.browseToken++;
  state.browsePly = null;
  state.browseView = null;
  if (state.live && !$('message').classList.contains('error')) setMessage(statusText(state.live));
  render();
}

// ---------------------------------------------------------------- game controls

function engineSpec() {
  return $('engine-spec').value.trim() || $('engine').value;
}

function settingsFromForm() {
  const body = { mode: $('mode').value, human: $('color').value };
  const engine = engineSpec();
  if (engine) body.engine = engine;
  const ms = parseInt($('time-ms').value, 10);
  if (Number.isFinite(ms) && ms > 0) body.time_ms = ms;
  return body;
}

function fillForm(v) {
  $('mode').value = v.mode;
  $('color').value = v.human;
  $('engine-spec').value = v.engine || '';
  syncEngineSelect();
  if (v.time_ms) $('time-ms').value = v.time_ms;
}

function syncEngineSelect() {
  const spec = $('engine-spec').value.trim();
  const sel = $('engine');
  sel.value = [...sel.options].some((o) => o.value === spec) ? spec : '';
}

async function newGame(extra = {}) {
  await act(async () => {
    const v = await api('POST', '/api/games', { ...settingsFromForm(), ...extra });
    state.formFilledFor = null;
    openGame(v);
  });
}

async function post(suffix, body) {
  await act(async () => {
    const v = await api('POST', gameUrl(suffix), body);
    acceptView(v);
  });
}

async function copyFen() {
  const v = shown();
  if (!v) return;
  try {
    await navigator.clipboard.writeText(v.fen);
    setMessage('FEN copied to the clipboard.');
  } catch (_) {
    // No clipboard access (e.g. not a secure origin): leave it selected in the FEN box.
    const input = $('fen-input');
    input.value = v.fen;
    input.select();
    const ok = document.execCommand && document.execCommand('copy');
    setMessage(ok ? 'FEN copied to the clipboard.' : 'FEN put in the FEN box: copy it from there.');
  }
}

function loadRecordFile(file) {
  const reader = new FileReader();
  reader.onload = () => newGame({ record: String(reader.result) });
  reader.onerror = () => showError(`Cannot read ${file.name}: ${reader.error}`);
  reader.readAsText(file);
}

function savePrefs() {
  try { localStorage.setItem(PREFS_KEY, JSON.stringify(state.prefs)); } catch (_) { /* private mode */ }
}

function loadPrefs() {
  try {
    const p = JSON.parse(localStorage.getItem(PREFS_KEY) || '{}');
    if (p.labels === 'kanji' || p.labels === 'english') state.prefs.labels = p.labels;
    if (p.coords === 'cecp' || p.coords === 'hodges') state.prefs.coords = p.coords;
    state.prefs.threats = !!p.threats;
    if (Number.isFinite(p.zoom)) state.prefs.zoom = Math.max(60, Math.min(200, p.zoom));
  } catch (_) { /* defaults */ }
  $('labels').value = state.prefs.labels;
  $('coords').value = state.prefs.coords;
  $('threats').checked = state.prefs.threats;
  $('zoom').value = state.prefs.zoom;
  applyZoom();
}

function applyZoom() {
  document.documentElement.style.setProperty('--zoom', String(state.prefs.zoom / 100));
}

function bindControls() {
  const b = boardEl();
  b.addEventListener('click', (e) => {
    if (state.suppressClick) return;
    const rect = e.target.closest && e.target.closest('rect.sq');
    if (rect) onSquare(rect.dataset.sq);
  });
  b.addEventListener('pointerdown', onPointerDown);
  window.addEventListener('pointermove', onPointerMove);
  window.addEventListener('pointerup', onPointerUp);
  window.addEventListener('pointercancel', () => {
    if (state.drag) { state.drag = null; $('layer-drag').replaceChildren(); renderBoard(); }
  });
  b.addEventListener('pointerover', (e) => {
    if (state.drag) return;
    const rect = e.target.closest && e.target.closest('rect.sq');
    const sq = rect ? rect.dataset.sq : null;
    if (sq !== state.hover) {
      state.hover = sq;
      renderDests(shown());
      renderHoverInfo();
    }
  });
  b.addEventListener('pointerleave', () => {
    if (state.drag) return;
    state.hover = null;
    renderDests(shown());
    renderHoverInfo();
  });

  $('flip').addEventListener('click', () => {
    state.flipped = !state.flipped;
    layoutBoard();
    renderBoard();
  });
  $('labels').addEventListener('change', (e) => { state.prefs.labels = e.target.value; savePrefs(); render(); });
  $('coords').addEventListener('change', (e) => { state.prefs.coords = e.target.value; savePrefs(); layoutBoard(); render(); });
  $('threats').addEventListener('change', (e) => { state.prefs.threats = e.target.checked; savePrefs(); render(); });
  $('zoom').addEventListener('input', (e) => { state.prefs.zoom = Number(e.target.value); applyZoom(); savePrefs(); });

  $('undo').addEventListener('click', () => post('/undo'));
  $('resign').addEventListener('click', () => post('/resign'));
  $('pass').addEventListener('click', () => {
    const pieceP = piecePassMoves();
    const nullPass = legalMoves().find((m) => m.null_pass);
    if (pieceP.length) submit(pieceP[0].move);
    else if (nullPass) submit(nullPass.move);
  });
  $('move-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = $('move-input');
    const text = input.value.trim();
    if (!text) return;
    if (!isLive()) goLive();
    await act(async () => {
      const v = await api('POST', gameUrl('/move'), { move: text });
      input.value = '';
      acceptView(v);
    });
  });

  $('moves').addEventListener('click', (e) => {
    const li = e.target.closest('li[data-ply]');
    if (li) browse(Number(li.dataset.ply));
  });
  $('first').addEventListener('click', () => browse(0));
  $('prev').addEventListener('click', () => browse(shownPly() - 1));
  $('next').addEventListener('click', () => browse(shownPly() + 1));
  $('live').addEventListener('click', goLive);
  $('truncate').addEventListener('click', async () => {
    const ply = state.browsePly;
    if (ply === null) return;
    await post('/truncate', { ply });
    goLive();
  });

  $('new-game').addEventListener('click', () => newGame());
  $('apply-settings').addEventListener('click', () => post('/settings', settingsFromForm()));
  $('load-fen').addEventListener('click', () => {
    const fen = $('fen-input').value.trim();
    if (!fen) return showError('Type or paste a FEN into the box first.');
    newGame({ fen });
  });
  $('copy-fen').addEventListener('click', copyFen);
  $('load-record').addEventListener('change', (e) => {
    const file = e.target.files && e.target.files[0];
    if (file) loadRecordFile(file);
    e.target.value = '';
  });
  $('engine').addEventListener('change', (e) => { if (e.target.value) $('engine-spec').value = e.target.value; });
  $('engine-spec').addEventListener('input', syncEngineSelect);

  document.addEventListener('keydown', (e) => {
    const tag = e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Escape') clearSelection();
    else if (e.key === 'ArrowLeft') browse(shownPly() - 1);
    else if (e.key === 'ArrowRight') { if (!isLive()) browse(shownPly() + 1); }
    else if (e.key === 'Home') browse(0);
    else if (e.key === 'End') goLive();
    else return;
    e.preventDefault();
  });
  window.addEventListener('hashchange', () => {
    const id = hashGameId();
    if (id && id !== state.gameId) loadGame(id);
  });
}

async function loadInfo() {
  try {
    const info = await api('GET', '/api/info');
    state.info = info;
    const sel = $('engine');
    for (const e of info.engines || []) sel.append(h('option', { value: e.spec }, e.label || e.spec));
    if (!$('engine-spec').value && info.default_engine) $('engine-spec').value = info.default_engine;
    if (!state.live && info.default_time_ms) $('time-ms').value = info.default_time_ms;
    syncEngineSelect();
    $('run-link').hidden = !info.run;
    $('footer').textContent = `tenjiku ${info.version || ''}`;
  } catch (e) {
    $('footer').textContent = `server info unavailable: ${e.message}`;
  }
}

/** Opens the game `id`; when the server no longer has it, starts a new one. */
async function loadGame(id) {
  try {
    const v = await api('GET', `/api/games/${encodeURIComponent(id)}`);
    openGame(v);
  } catch (e) {
    if (e.status === 404) {
      await act(async () => {
        const v = await api('POST', '/api/games', { mode: 'play' });
        openGame(v);
      });
      showError(`Game ${id} does not exist (any more); started a new game.`);
    } else {
      showError(e.message);
    }
  }
}

async function init() {
  buildBoard();
  loadPrefs();
  bindControls();
  layoutBoard();
  const info = loadInfo();
  const id = hashGameId();
  if (id) {
    await loadGame(id);
  } else {
    await act(async () => {
      const v = await api('POST', '/api/games', { mode: 'play' });
      openGame(v);
    });
  }
  await info;
  if (state.live) fillForm(state.live);
  // `loading` (the page's own) until a game is on the board; tests and people can tell a page
  // that could not open a game from one still waiting for it.
  else document.body.dataset.status = 'no-game';
}

document.addEventListener('DOMContentLoaded', init);
