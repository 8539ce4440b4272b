// Training-run page: one line chart per numeric column of the run's metrics.csv
// (GET /api/run/metrics → {"columns": [...], "rows": [[...], ...]}) against `step`,
// refreshed every 10 seconds.
'use strict';

const REFRESH_MS = 10000;
const W = 340;
const H = 170;
const PAD = { left: 50, right: 12, top: 10, bottom: 24 };
const SVGNS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A number from a CSV cell (number, numeric string, or empty). */
function num(x) {
  if (x === null || x === undefined || x === '') return null;
  const v = typeof x === 'number' ? x : Number(x);
  return Number.isFinite(v) ? v : null;
}

function fmt(v) {
  if (v === null) return '—';
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(2);
  if (a >= 1000) return Math.round(v).toLocaleString('en');
  return String(Number(v.toPrecision(4)));
}

/** About `count` round tick values covering [lo, hi]. */
function ticks(lo, hi, count = 4) {
  const span = hi - lo;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || 10 * mag;
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  return out;
}

function chart(name, points) {
  const box = document.createElement('section');
  box.className = 'chart';
  box.dataset.column = name;
  const title = document.createElement('h3');
  const last = points[points.length - 1];
  title.append(name);
  const value = document.createElement('span');
  value.className = 'value';
  value.textContent = `${fmt(last[1])} at step ${fmt(last[0])}`;
  title.append(value);
  box.append(title);

  let [x0, x1] = [points[0][0], last[0]];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  let y0 = Math.min(...points.map((p) => p[1]));
  let y1 = Math.max(...points.map((p) => p[1]));
  if (y0 === y1) { const d = Math.abs(y0) * 0.1 || 1; y0 -= d; y1 += d; }
  const pad = (y1 - y0) * 0.05;
  y0 -= pad; y1 += pad;
  const px = (x) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const py = (y) => H - PAD.bottom - ((y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);

  const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${name} against step` });
  for (const t of ticks(y0, y1)) {
    s.append(svg('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: py(t), y2: py(t) }));
    s.append(svg('text', { class: 'tick', x: PAD.left - 4, y: py(t) + 3, 'text-anchor': 'end' }, fmt(t)));
  }
  for (const t of ticks(x0, x1, 4)) {
    s.append(svg('text', { class: 'tick', x: px(t), y: H - 8, 'text-anchor': 'middle' }, fmt(t)));
  }
  s.append(svg('line', { class: 'axis', x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom }));
  s.append(svg('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom }));
  s.append(svg('polyline', { class: 'line', points: points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ') }));
  if (points.length <= 40) for (const [x, y] of points) s.append(svg('circle', { class: 'dot', cx: px(x), cy: py(y), r: 2.2 }));

  // Hover: the nearest point's step and value.
  const cursor = svg('line', { class: 'cursor', y1: PAD.top, y2: H - PAD.bottom, visibility: 'hidden' });
  const label = svg('text', { class: 'cursor-label', y: PAD.top + 10, visibility: 'hidden' });
  s.append(cursor, label);
  s.addEventListener('mousemove', (e) => {
    const pt = s.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const { x } = pt.matrixTransform(s.getScreenCTM().inverse());
    let best = points[0];
    for (const p of points) if (Math.abs(px(p[0]) - x) < Math.abs(px(best[0]) - x)) best = p;
    const cx = px(best[0]);
    cursor.setAttribute('x1', cx);
    cursor.setAttribute('x2', cx);
    label.textContent = `step ${fmt(best[0])}: ${fmt(best[1])}`;
    const right = cx > W / 2;
    label.setAttribute('x', right ? cx - 4 : cx + 4);
    label.setAttribute('text-anchor', right ? 'end' : 'start');
    cursor.setAttribute('visibility', 'visible');
    label.setAttribute('visibility', 'visible');
  });
  s.addEventListener('mouseleave', () => {
    cursor.setAttribute('visibility', 'hidden');
    label.setAttribute('visibility', 'hidden');
  });
  box.append(s);
  return box;
}

function draw(data) {
  const columns = Array.isArray(data.columns) ? data.columns : [];
  const rows = Array.isArray(data.rows) ? data.rows : [];
  const stepAt = columns.indexOf('step');
  const charts = [];
  columns.forEach((name, c) => {
    if (c === stepAt) return;
    const points = [];
    rows.forEach((row, i) => {
      const x = stepAt >= 0 ? num(row[stepAt]) : i;
      const y = num(row[c]);
      if (x !== null && y !== null) points.push([x, y]);
    });
    if (!points.length) return; // not a numeric column (or no value yet)
    points.sort((a, b) => a[0] - b[0]);
    charts.push(chart(name, points));
  });
  const box = document.getElementById('charts');
  box.replaceChildren(...charts);
  if (!charts.length) box.textContent = 'No metrics yet.';
  document.getElementById('run-status').textContent =
    `${rows.length} rows · updated ${new Date().toLocaleTimeString()} · refreshes every ${REFRESH_MS / 1000} s`;
}

async function refresh() {
  const err = document.getElementById('run-error');
  try {
    const res = await fetch('/api/run/metrics', { headers: { Accept: 'application/json' } });
    const text = await res.text();
    let data = null;
    try { data = JSON.parse(text); } catch (_) { data = null; }
    if (!res.ok) throw new Error(data && data.error ? data.error : `${res.status} ${res.statusText}`);
    if (!data) throw new Error('the server did not answer JSON');
    draw(data);
    err.hidden = true;
  } catch (e) {
    err.textContent = `Cannot read the metrics: ${e.message}`;
    err.hidden = false;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  refresh();
  setInterval(refresh, REFRESH_MS);
});
