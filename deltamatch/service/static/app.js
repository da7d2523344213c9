// deltamatch live page: patterns, totals over versions, recent match deltas, cluster load.
// Plain browser JavaScript, no build step. Talks only to the service that serves it (SPEC §2.1).
"use strict";

const LIST_CAP = 30;          // recent added/removed matches kept per pattern
const STREAM_MATCH_CAP = 30;  // max_matches asked of the stream (counts stay exact)
const POINT_CAP = 5000;       // chart points kept per pattern
const MAX_STREAMS = 3;        // HTTP/1.1 allows 6 connections per host: leave room for REST calls
const PATTERN_POLL_MS = 2000;
const CLUSTER_POLL_MS = 1000;
const RATE_WINDOW_MS = 5000;  // updates/s and batch latency are averaged over this window
const REOPEN_MS = 1500;
const SVG_NS = "http://www.w3.org/2000/svg";

const state = {
  token: sessionStorage.getItem("deltamatch-token") || "",
  patterns: new Map(),  // id -> pattern view state, in registration order
  selected: null,
  samples: [],          // rate window: /metrics counters and worker busy times, newest last
  online: null,
  lastRegistered: null, // id of the pattern this page's form registered last
  deletedAt: new Map(), // id -> when this page deleted it (a poll already in flight still lists it)
};

const $ = (id) => document.getElementById(id);

function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

function fmt(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return "–";
  if (typeof n !== "number") return String(n);
  if (Number.isInteger(n)) return n.toLocaleString("en-US");
  return n.toLocaleString("en-US", { maximumFractionDigits: n < 10 ? 3 : 1 });
}

// ---- HTTP ---------------------------------------------------------------------------------

function errorText(body, status) {
  const detail = body && body.detail;
  return typeof detail === "string" ? detail : `HTTP ${status}`;
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && state.token) headers.Authorization = `Bearer ${state.token}`;
  const resp = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  const text = await resp.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = { detail: text }; }
  }
  if (!resp.ok) {
    const err = new Error(errorText(data, resp.status));
    err.status = resp.status;
    throw err;
  }
  return data;
}

function setOnline(ok, why) {
  if (state.online === ok && ok) return;
  state.online = ok;
  const el = $("service-status");
  el.dataset.state = ok ? "online" : "offline";
  el.textContent = ok ? "service online" : `service unreachable — retrying (${why})`;
}

// ---- patterns -----------------------------------------------------------------------------

function patternView(info) {
  return {
    id: String(info.id), info, total: info.total, lastVersion: info.version,
    points: [[info.version, info.total]],  // [version, total] for the chart
    versions: [info.version],              // every version this page has seen the total of
    resets: [],                            // versions at which the stream said `reset`
    gaps: [],                              // [from, to] version ranges that never arrived
    added: [], removed: [], truncated: false, polled: null,
    stream: null, streamState: "polled", reopenTimer: null, card: null,
    opens: 0,                              // EventSources this page opened (its own reconnects)
    drops: 0,                              // stream errors seen (each one a drop or a failed retry)
  };
}

function addPattern(info) {
  const id = String(info.id);
  if (state.patterns.has(id)) return state.patterns.get(id);
  const p = patternView(info);
  p.addedAt = performance.now();
  state.patterns.set(id, p);
  if (state.selected === null) state.selected = id;
  return p;
}

function removePattern(id) {
  const p = state.patterns.get(id);
  if (!p) return;
  closeStream(p);
  if (p.card) p.card.remove();
  state.patterns.delete(id);
  if (state.selected === id) state.selected = state.patterns.size ? state.patterns.keys().next().value : null;
}

async function pollPatterns() {
  const started = performance.now();
  try {
    const list = await api("GET", "/v1/patterns");
    setOnline(true);
    const seen = new Set();
    for (const info of list) {
      const id = String(info.id);
      seen.add(id);
      if (state.deletedAt.get(id) > started) continue;
      const p = state.patterns.get(id) || addPattern(info);
      p.info = info;
      // Shown while the pattern is not streamed; its stream fills the chart in when reopened.
      p.polled = { version: info.version, total: info.total };
    }
    for (const [id, p] of [...state.patterns]) if (!seen.has(id) && p.addedAt < started) removePattern(id);
    for (const [id, t] of [...state.deletedAt]) if (t < started) state.deletedAt.delete(id);
    syncStreams();
    render();
  } catch (err) {
    setOnline(false, err.message);
  }
}

function streamedIds() {
  // The selected pattern, then the most recently registered ones.
  const ids = [...state.patterns.keys()].reverse();
  const chosen = state.selected ? [state.selected] : [];
  for (const id of ids) if (chosen.length < MAX_STREAMS && !chosen.includes(id)) chosen.push(id);
  return new Set(chosen);
}

function syncStreams() {
  const want = document.hidden ? new Set() : streamedIds();
  for (const p of state.patterns.values()) {
    if (want.has(p.id) && !p.stream && !p.reopenTimer) openStream(p);
    if (!want.has(p.id) && (p.stream || p.reopenTimer)) closeStream(p);
  }
}

// ---- the delta stream ---------------------------------------------------------------------

function openStream(p) {
  // `since` covers the first connection; EventSource's own reconnects send Last-Event-ID.
  const q = new URLSearchParams({ matches: "true", max_matches: String(STREAM_MATCH_CAP),
    since: String(p.lastVersion) });
  const es = new EventSource(`/v1/patterns/${encodeURIComponent(p.id)}/deltas?${q}`);
  p.stream = es;
  p.opens += 1;
  p.streamState = "connecting";
  es.onopen = () => { p.streamState = "live"; render(); };
  es.addEventListener("delta", (ev) => { onDelta(p, JSON.parse(ev.data)); });
  es.addEventListener("reset", (ev) => { onReset(p, JSON.parse(ev.data)); });
  es.onerror = () => {
    if (p.stream !== es) return;
    p.drops += 1;
    if (es.readyState === EventSource.CLOSED) {
      // The server answered with an error (e.g. while restarting): EventSource gives up, we don't.
      es.close();
      p.stream = null;
      p.streamState = "reconnecting";
      p.reopenTimer = setTimeout(() => {
        p.reopenTimer = null;
        if (state.patterns.get(p.id) === p && !document.hidden && streamedIds().has(p.id)) openStream(p);
      }, REOPEN_MS);
    } else {
      p.streamState = "reconnecting";
    }
    render();
  };
}

function closeStream(p) {
  if (p.stream) p.stream.close();
  if (p.reopenTimer) clearTimeout(p.reopenTimer);
  p.stream = null;
  p.reopenTimer = null;
  p.streamState = "polled";
}

function onDelta(p, d) {
  const v = d.version;
  if (v <= p.lastVersion) return;  // already seen (a replay after reconnecting)
  if (v > p.lastVersion + 1) p.gaps.push([p.lastVersion + 1, v - 1]);
  p.lastVersion = v;
  p.total = d.total;
  p.versions.push(v);
  pushPoint(p, [v, d.total]);
  for (const m of d.added || []) p.added.unshift({ v, m });
  for (const m of d.removed || []) p.removed.unshift({ v, m });
  p.added.length = Math.min(p.added.length, LIST_CAP);
  p.removed.length = Math.min(p.removed.length, LIST_CAP);
  p.truncated = Boolean(d.truncated);
  p.lastAddedCount = d.added_count;
  p.lastRemovedCount = d.removed_count;
  p.lastDeltaVersion = v;
  render();
}

function onReset(p, d) {
  // The server no longer holds the versions after our cursor: jump to its current total.
  if (d.version > p.lastVersion + 1) p.gaps.push([p.lastVersion + 1, d.version - 1]);
  p.resets.push(d.version);
  if (d.version > p.lastVersion) p.versions.push(d.version);
  p.lastVersion = d.version;
  p.total = d.total;
  pushPoint(p, [d.version, d.total]);
  render();
}

function pushPoint(p, pt) {
  p.points.push(pt);
  if (p.points.length > POINT_CAP) p.points.splice(0, p.points.length - POINT_CAP);
}

// ---- drawing ------------------------------------------------------------------------------

function drawShape(el, k, edges) {
  el.replaceChildren();
  const size = 64, r = k <= 3 ? 20 : 24, c = size / 2;
  const pos = [];
  for (let i = 0; i < k; i++) {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / k;
    pos.push([c + r * Math.cos(a), c + r * Math.sin(a)]);
  }
  for (const [u, v] of edges) {
    el.append(svg("line", { x1: pos[u][0], y1: pos[u][1], x2: pos[v][0], y2: pos[v][1], class: "edge" }));
  }
  pos.forEach(([x, y], i) => {
    el.append(svg("circle", { cx: x, cy: y, r: 6, class: "vertex" }));
    el.append(svg("text", { x, y: y + 3, class: "vlabel" }, String(i)));
  });
}

function drawChart(el, p, big) {
  el.replaceChildren();
  const [W, H] = big ? [640, 220] : [160, 44];
  const padL = big ? 56 : 2, padR = big ? 12 : 2, padT = big ? 12 : 3, padB = big ? 24 : 3;
  const pts = p.points;
  if (!pts.length) return;
  const v0 = pts[0][0], v1 = Math.max(pts[pts.length - 1][0], v0 + 1);
  let lo = Infinity, hi = -Infinity;
  for (const [, t] of pts) { lo = Math.min(lo, t); hi = Math.max(hi, t); }
  if (hi === lo) { hi += 1; lo = Math.max(0, lo - 1); }
  const x = (v) => padL + ((v - v0) / (v1 - v0)) * (W - padL - padR);
  const y = (t) => H - padB - ((t - lo) / (hi - lo)) * (H - padT - padB);
  if (big) {
    for (const t of [lo, (lo + hi) / 2, hi]) {
      el.append(svg("line", { x1: padL, x2: W - padR, y1: y(t), y2: y(t), class: "grid" }));
      el.append(svg("text", { x: padL - 6, y: y(t) + 4, class: "axis", "text-anchor": "end" }, fmt(Math.round(t))));
    }
    el.append(svg("text", { x: padL, y: H - 6, class: "axis" }, `v${v0}`));
    const vm = Math.round((v0 + v1) / 2);
    if (vm > v0 && vm < v1) {
      el.append(svg("text", { x: x(vm), y: H - 6, class: "axis", "text-anchor": "middle" }, `v${vm}`));
    }
    el.append(svg("text", { x: W - padR, y: H - 6, class: "axis", "text-anchor": "end" }, `v${v1}`));
    for (const rv of p.resets) {
      el.append(svg("line", { x1: x(rv), x2: x(rv), y1: padT, y2: H - padB, class: "reset" }));
    }
  }
  // A step line: the total holds from one version to the next.
  let d = `M${x(pts[0][0])},${y(pts[0][1])}`;
  for (let i = 1; i < pts.length; i++) d += `H${x(pts[i][0])}V${y(pts[i][1])}`;
  el.append(svg("path", { d, class: "line" }));
  if (big && pts.length <= 60) {
    for (const [v, t] of pts) el.append(svg("circle", { cx: x(v), cy: y(t), r: 2.5, class: "dot" }));
  }
}

function makeCard(p) {
  const card = document.createElement("div");
  card.className = "pattern";
  card.dataset.id = p.id;
  card.innerHTML = `
    <svg class="shape" viewBox="0 0 64 64" aria-label="pattern shape"></svg>
    <div class="pinfo">
      <div class="pname"></div>
      <div class="pmeta muted"></div>
      <svg class="spark" viewBox="0 0 160 44" preserveAspectRatio="none"></svg>
    </div>
    <div class="pright">
      <div class="total" title="current total"></div>
      <div class="pver muted"></div>
      <button class="delete" title="remove this pattern">×</button>
    </div>`;
  card.addEventListener("click", (ev) => {
    if (ev.target.closest(".delete")) return;
    state.selected = p.id;
    syncStreams();
    render();
  });
  card.querySelector(".delete").addEventListener("click", () => deletePattern(p.id));
  drawShape(card.querySelector(".shape"), p.info.k, p.info.edges);
  $("patterns").append(card);
  p.card = card;
  return card;
}

let renderQueued = false;
function render() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => { renderQueued = false; renderNow(); });
}

function renderNow() {
  $("no-patterns").hidden = state.patterns.size > 0;
  for (const p of state.patterns.values()) {
    const card = p.card || makeCard(p);
    card.classList.toggle("selected", p.id === state.selected);
    card.dataset.stream = p.streamState;
    card.dataset.version = p.lastVersion;
    card.querySelector(".pname").textContent = p.info.name || `pattern ${p.id}`;
    card.querySelector(".pmeta").textContent =
      `#${p.id} · k=${p.info.k} · ${p.info.induced ? "induced" : "edge-induced"} · ${p.streamState}`;
    const [version, total] = p.polled && p.polled.version > p.lastVersion
      ? [p.polled.version, p.polled.total] : [p.lastVersion, p.total];
    card.querySelector(".total").textContent = fmt(total);
    card.querySelector(".pver").textContent = `v${version}`;
    drawChart(card.querySelector(".spark"), p, false);
  }
  renderDetail();
}

function matchItems(el, items) {
  el.replaceChildren(...items.map(({ v, m }) => {
    const li = document.createElement("li");
    const mv = document.createElement("span");
    mv.className = "mv";
    mv.textContent = `v${v}`;
    li.append(mv, ` (${m.join(", ")})`);
    return li;
  }));
}

function renderDetail() {
  const p = state.selected && state.patterns.get(state.selected);
  const chart = $("detail-chart");
  if (!p) {
    $("detail-title").textContent = "Select a pattern";
    $("detail-meta").textContent = "";
    chart.replaceChildren();
    $("added-list").replaceChildren();
    $("removed-list").replaceChildren();
    return;
  }
  const i = p.info;
  $("detail-title").textContent = `${i.name || "pattern " + p.id} — total ${fmt(p.total)}`;
  const bits = [`id ${p.id}`, `version ${p.lastVersion}`, `k=${i.k}`, `${i.edges.length} edges`,
    i.induced ? "vertex-induced" : "edge-induced"];
  if (i.automorphisms !== undefined) bits.push(`|Aut| ${i.automorphisms}`);
  if (i.plans !== undefined) bits.push(`${i.plans} plan${i.plans === 1 ? "" : "s"}`);
  bits.push(`stream ${p.streamState}`);
  if (p.resets.length) bits.push(`${p.resets.length} reset(s)`);
  if (p.gaps.length) bits.push(`missed versions: ${p.gaps.map(([a, b]) => (a === b ? a : `${a}–${b}`)).join(", ")}`);
  $("detail-meta").textContent = bits.join(" · ");
  drawChart(chart, p, true);
  matchItems($("added-list"), p.added);
  matchItems($("removed-list"), p.removed);
  const known = p.lastAddedCount !== undefined;
  $("added-count").textContent = known ? `+${fmt(p.lastAddedCount)} in v${p.lastDeltaVersion}` : "";
  $("removed-count").textContent = known ? `−${fmt(p.lastRemovedCount)} in v${p.lastDeltaVersion}` : "";
  $("matches-note").textContent = `Most recent matches, newest first (${LIST_CAP} kept per side` +
    `${p.truncated ? "; the last event's listing was capped, its counts are exact" : ""}).`;
}

// ---- registering and removing -------------------------------------------------------------

const EDGE_LIST = /^\s*\d+\s*-\s*\d+\s*(,\s*\d+\s*-\s*\d+\s*)*,?\s*$/;

function registrationBody() {
  const spec = $("pattern-spec").value.trim();
  const label = $("pattern-label").value.trim();
  const induced = $("pattern-induced").checked;
  if (EDGE_LIST.test(spec)) {
    const edges = spec.split(",").filter((s) => s.trim()).map((s) => s.split("-").map((x) => Number(x.trim())));
    const body = { edges, induced };
    if (label) body.name = label;
    return body;
  }
  return { name: spec, induced };  // the service names unknown built-ins in its error
}

function showFormError(msg) {
  const el = $("form-error");
  el.textContent = msg;
  el.hidden = !msg;
  if (msg) $("form-ok").hidden = true;
}

function tokenProblem(err) {
  if (err.status !== 401 && err.status !== 403) return false;
  $("token-form").classList.add("needed");
  $("token-state").textContent = state.token ? "token rejected" : "the service needs a token";
  $("token-input").focus();
  return true;
}

async function registerPattern(ev) {
  ev.preventDefault();
  showFormError("");
  $("form-ok").hidden = true;
  const button = $("register-button");
  button.disabled = true;
  try {
    const info = await api("POST", "/v1/patterns", registrationBody());
    const p = addPattern(info);
    state.selected = p.id;
    state.lastRegistered = p.id;
    $("form-ok").textContent = `registered ${info.name || "pattern"} as #${info.id}: total ${fmt(info.total)} at v${info.version}`;
    $("form-ok").hidden = false;
    $("pattern-spec").value = "";
    $("pattern-label").value = "";
    syncStreams();
    render();
  } catch (err) {
    tokenProblem(err);
    showFormError(err.message);
  } finally {
    button.disabled = false;
  }
}

async function deletePattern(id) {
  try {
    await api("DELETE", `/v1/patterns/${encodeURIComponent(id)}`);
    state.deletedAt.set(id, performance.now());
    removePattern(id);
    syncStreams();
    render();
  } catch (err) {
    tokenProblem(err);
    showFormError(`removing #${id}: ${err.message}`);
  }
}

function saveToken(ev) {
  ev.preventDefault();
  state.token = $("token-input").value.trim();
  if (state.token) sessionStorage.setItem("deltamatch-token", state.token);
  else sessionStorage.removeItem("deltamatch-token");
  $("token-form").classList.remove("needed");
  $("token-state").textContent = state.token ? "token set for this tab" : "no token";
}

// ---- cluster ------------------------------------------------------------------------------

function parseMetrics(text) {
  // Prometheus text format: every sample of a metric name summed over its labels.
  const out = {};
  for (const line of text.split("\n")) {
    if (!line || line[0] === "#") continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/);
    if (!m) continue;
    const v = Number(m[3]);
    if (Number.isFinite(v)) out[m[1]] = (out[m[1]] || 0) + v;
  }
  return out;
}

async function sample(cluster) {
  // One point of the rate window: /metrics counters plus each worker's cumulative busy time.
  const point = { t: performance.now(), busy: (cluster.workers || []).map(busyOf) };
  try {
    const resp = await fetch("/metrics");
    if (resp.ok) {
      const m = parseMetrics(await resp.text());
      point.updates = m.deltamatch_updates_total;
      point.batches = m.deltamatch_batch_latency_seconds_count;
      point.latencySum = m.deltamatch_batch_latency_seconds_sum;
      point.lastImbalance = m.deltamatch_worker_imbalance;
    }
  } catch {
    // /metrics is optional for the page: the panel shows what /v1/cluster alone gives.
  }
  state.samples.push(point);
  const cutoff = point.t - RATE_WINDOW_MS;
  while (state.samples.length > 2 && state.samples[1].t <= cutoff) state.samples.shift();
}

function delta(a, b, key) {
  return a[key] === undefined || b[key] === undefined ? undefined : b[key] - a[key];
}

function rates() {
  // Rates over the window, from the oldest and newest sample in it.
  const s = state.samples;
  const b = s[s.length - 1] || {};
  const out = { lastImbalance: b.lastImbalance };
  if (s.length < 2) return out;
  const a = s[0];
  const dt = (b.t - a.t) / 1000;
  const updates = delta(a, b, "updates"), batches = delta(a, b, "batches"), lat = delta(a, b, "latencySum");
  if (dt > 0 && updates !== undefined) out.ups = updates / dt;
  if (dt > 0 && batches !== undefined) out.batchesPerS = batches / dt;
  if (batches > 0 && lat !== undefined) out.latencyMs = (lat / batches) * 1000;
  if (dt > 0 && a.busy.length === b.busy.length) {
    out.util = b.busy.map((x, i) => (x === undefined || a.busy[i] === undefined ? undefined : (x - a.busy[i]) / dt));
  }
  return out;
}

function busyOf(w) {
  return typeof w.busy_seconds === "number" ? w.busy_seconds : undefined;
}

function bytes(n) {
  if (typeof n !== "number") return "";
  return n >= 2 ** 30 ? `${fmt(n / 2 ** 30)} GiB` : `${fmt(n / 2 ** 20)} MiB`;
}

function renderCluster(c) {
  const g = c.graph || {};
  const workers = c.workers || [];
  const busy = workers.map(busyOf).filter((x) => x !== undefined);
  const r = rates();
  const cumulative = busy.length > 1 && Math.min(...busy) > 0 ? Math.max(...busy) / Math.min(...busy) : undefined;
  const stats = [
    ["version", g.version], ["vertices", g.vertices], ["edges", g.edges], ["max degree", g.max_degree],
    ["patterns", c.patterns], ["subscribers", c.subscribers],
    ["updates/s", r.ups === undefined ? undefined : Math.round(r.ups)],
    ["batches/s", r.batchesPerS],
    ["batch latency", r.latencyMs === undefined ? undefined : `${fmt(r.latencyMs)} ms`],
    ["imbalance, last batch", r.lastImbalance ? `${fmt(r.lastImbalance)}×` : undefined],
    ["imbalance, all busy time", cumulative === undefined ? undefined : `${fmt(cumulative)}×`],
  ];
  $("cluster-stats").replaceChildren(...stats.flatMap(([k, v]) => {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = fmt(v);
    dd.dataset.stat = k;
    return [dt, dd];
  }));
  const maxBusy = Math.max(1e-9, ...busy);
  $("workers").querySelector("tbody").replaceChildren(...workers.map((w, i) => {
    const tr = document.createElement("tr");
    const b = busyOf(w);
    const device = [w.device, w.gpu_name, bytes(w.memory_bytes)].filter((x) => x).join(" · ");
    const util = r.util && r.util[i];
    const busyText = b === undefined ? "–"
      : `${fmt(b)} s${util === undefined ? "" : ` · ${Math.round(100 * util)}% now`}`;
    for (const text of [w.worker ?? i, w.backend, device || "–", fmt(w.tasks_run), busyText]) {
      const td = document.createElement("td");
      td.textContent = String(text ?? "–");
      tr.append(td);
    }
    tr.dataset.backend = w.backend || "";
    if (b !== undefined) {
      const bar = document.createElement("div");
      bar.className = "bar";
      bar.style.width = `${(100 * b) / maxBusy}%`;
      tr.lastChild.append(bar);
    }
    return tr;
  }));
}

async function pollCluster() {
  try {
    const c = await api("GET", "/v1/cluster");
    await sample(c);
    $("cluster-error").hidden = true;
    renderCluster(c);
  } catch (err) {
    $("cluster-error").textContent = `cluster: ${err.message}`;
    $("cluster-error").hidden = false;
  }
}

// ---- start --------------------------------------------------------------------------------

// For tests and the curious: what this page has seen, per pattern.
window.deltamatchUI = {
  versions: (id) => [...(state.patterns.get(String(id))?.versions || [])],
  resets: (id) => [...(state.patterns.get(String(id))?.resets || [])],
  gaps: (id) => (state.patterns.get(String(id))?.gaps || []).map((g) => [...g]),
  total: (id) => state.patterns.get(String(id))?.total,
  stream: (id) => state.patterns.get(String(id))?.streamState,
  opens: (id) => state.patterns.get(String(id))?.opens,
  drops: (id) => state.patterns.get(String(id))?.drops,
  lastRegistered: () => state.lastRegistered,
};

function start() {
  $("register-form").addEventListener("submit", registerPattern);
  $("token-form").addEventListener("submit", saveToken);
  $("token-input").value = state.token;
  $("token-state").textContent = state.token ? "token set for this tab" : "";
  // Streams hold connections (six per host in HTTP/1.1): a page left for another one, and kept
  // in the back/forward cache, must not keep holding them.
  // Hidden tabs let go of theirs too, and catch up from their last version when shown again.
  const release = () => { for (const p of state.patterns.values()) closeStream(p); render(); };
  window.addEventListener("pagehide", release);
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) syncStreams(); });
  document.addEventListener("visibilitychange", () => (document.hidden ? release() : syncStreams()));
  every(pollPatterns, PATTERN_POLL_MS);
  every(pollCluster, CLUSTER_POLL_MS);
}

async function every(fn, ms) {
  // Chained rather than setInterval, so a slow service never has polls piling up.
  await fn();
  setTimeout(() => every(fn, ms), ms);
}

start();
