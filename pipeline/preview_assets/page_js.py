"""JavaScript of the single-trajectory preview page (no dependencies, works from file://).

It reads the page's JSON blob (``#preview-data``), keeps three <audio> elements (user microphone,
assistant channel, their mix) on one clock, moves the playhead, seeks on clicks, zooms, draws the
delegate -> backend arrows and shows the hover card. ``window.preview`` exposes the state for
tests and for the console.
"""

JS = r"""
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("preview-data").textContent);
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const timeline = $("#timeline"), tracks = $(".tracks", timeline), playhead = $("#playhead");
  const playBtn = $("#play"), clock = $("#clock"), msg = $("#msg"), zoom = $("#zoom");
  const follow = $("#follow"), tip = $("#tip"), arrows = $("svg.arrows");
  const audios = { user: $("#audio-user"), assistant: $("#audio-assistant"), mix: $("#audio-mix") };
  // One source sounds at a time, all on one clock: the user microphone, the assistant channel,
  // or their mix (what a listener in the room would hear).
  const state = { source: "mix", t: 0, playing: false, unit: -1 };

  const fmt = (t) => t.toFixed(2);
  const pps = () => parseFloat(getComputedStyle(timeline).getPropertyValue("--pps")) || 100;
  const labelW = () => $(".row-label", tracks).getBoundingClientRect().width;

  function active() { return audios[state.source] || audios.mix || audios.user || audios.assistant; }
  function applyToggles() {
    for (const name of ["user", "assistant", "mix"]) {
      const b = $("#tog-" + name);
      b.setAttribute("aria-pressed", String(state.source === name));
      b.disabled = !audios[name] || !audios[name].getAttribute("src");
    }
  }

  function setT(t) {
    state.t = t;
    playhead.style.setProperty("--t", t);
    playhead.dataset.t = t.toFixed(3);
    const k = Math.min(D.num_units - 1, Math.max(0, Math.floor(t / D.unit_s + 1e-9)));
    clock.innerHTML = "<b>" + fmt(t) + "</b> / " + fmt(D.duration_s) + " s &nbsp;·&nbsp; window " + k;
    if (k !== state.unit) {
      $$(".unit.now, .unit-out.now").forEach((el) => el.classList.remove("now"));
      const u = $('.unit[data-index="' + k + '"]'); if (u) u.classList.add("now");
      const o = $('.unit-out[data-index="' + (k - 1) + '"]'); if (o) o.classList.add("now");
      state.unit = k;
    }
    if (state.playing && follow.checked) {
      const x = t * pps(), left = timeline.scrollLeft, w = timeline.clientWidth - labelW();
      if (x < left || x > left + w - 40) timeline.scrollLeft = Math.max(0, x - w * 0.25);
    }
  }

  function seek(t) {
    t = Math.max(0, Math.min(D.duration_s, t));
    for (const a of Object.values(audios)) {
      if (!a) continue;
      try { a.currentTime = t; } catch (err) { /* not seekable yet: position applies on load */ }
    }
    setT(t);
  }

  function loop() {
    if (!state.playing) return;
    const a = active();
    if (a) setT(a.currentTime);
    requestAnimationFrame(loop);
  }
  function play() {
    const a = active();
    if (!a) { msg.textContent = "no audio in this row"; return; }
    if (Math.abs(a.currentTime - state.t) > 0.02) a.currentTime = state.t;
    const p = a.play();
    state.playing = true;
    playBtn.textContent = "❚❚ Pause";
    if (p && p.catch) p.catch((err) => { msg.textContent = "cannot play: " + err.message; pause(); });
    requestAnimationFrame(loop);
  }
  function pause() {
    for (const a of Object.values(audios)) if (a) a.pause();
    state.playing = false;
    playBtn.textContent = "▶ Play";
    const a = active(); if (a) setT(a.currentTime);
  }
  function switchSource(name) {
    const before = active(), t = before ? before.currentTime : state.t;
    state.source = name;
    applyToggles();
    const after = active();
    if (after !== before && after) {
      after.currentTime = t;
      if (state.playing) { if (before) before.pause(); after.play(); }
    }
  }

  playBtn.addEventListener("click", () => (state.playing ? pause() : play()));
  for (const name of ["user", "assistant", "mix"]) {
    $("#tog-" + name).addEventListener("click", () => switchSource(name));
  }
  for (const a of Object.values(audios)) {
    if (!a) continue;
    a.addEventListener("ended", () => { if (a === active()) { pause(); setT(D.duration_s); } });
    a.addEventListener("seeked", () => { if (a === active() && !state.playing) setT(a.currentTime); });
  }
  document.addEventListener("keydown", (e) => {
    if (e.code === "Space" && !/INPUT|TEXTAREA|BUTTON|SELECT/.test(e.target.tagName)) {
      e.preventDefault(); state.playing ? pause() : play();
    }
  });

  // Click on an event, unit, label cell: seek to its data-seek. Click on empty lane: seek there.
  tracks.addEventListener("click", (e) => {
    const el = e.target.closest("[data-seek]");
    if (el) { seek(parseFloat(el.dataset.seek)); return; }
    const lane = e.target.closest(".lane, .ruler");
    if (lane) seek((e.clientX - lane.getBoundingClientRect().left) / pps());
  });
  // Hovering a unit highlights where its output plays, and the other way round.
  tracks.addEventListener("mouseover", (e) => {
    const el = e.target.closest("[data-index]");
    $$(".hl").forEach((h) => h.classList.remove("hl"));
    if (el) $$('[data-index="' + el.dataset.index + '"]').forEach((h) => h.classList.add("hl"));
  });

  // Hover card with the event's attributes.
  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  }
  tracks.addEventListener("mousemove", (e) => {
    const el = e.target.closest("[data-info]");
    if (!el) { tip.style.display = "none"; return; }
    if (tip.dataset.for !== el.dataset.info) {
      const info = JSON.parse(el.dataset.info);
      tip.innerHTML = "<h4>" + esc(info.title) + "</h4><table>" +
        info.rows.map((r) => "<tr><td>" + esc(r[0]) + "</td><td>" + esc(r[1]) + "</td></tr>").join("") + "</table>";
      tip.dataset.for = el.dataset.info;
    }
    tip.style.display = "block";
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let x = e.clientX + 14, y = e.clientY + 16;
    if (x + w > window.innerWidth - 4) x = Math.max(4, e.clientX - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, e.clientY - h - 12);
    tip.style.left = x + "px"; tip.style.top = y + "px";
  });
  tracks.addEventListener("mouseleave", () => {
    tip.style.display = "none";
    $$(".hl").forEach((h) => h.classList.remove("hl"));
  });

  // delegate -> backend arrows, in pixels, redrawn on zoom.
  function drawArrows() {
    if (!arrows) return;
    const p = pps(), NS = "http://www.w3.org/2000/svg";
    const [from, to] = D.arrow_lanes;   // event kinds, from schemas (the page's data)
    const dl = $(`.lane[data-kind="${from}"]`), bl = $(`.lane[data-kind="${to}"]`);
    arrows.setAttribute("width", D.end_s * p);
    arrows.setAttribute("height", tracks.offsetHeight);
    $$("g.arrow", arrows).forEach((g) => g.remove());
    if (!dl || !bl) return;
    const base = tracks.getBoundingClientRect().top;
    const mid = (el) => el.getBoundingClientRect().top - base + el.offsetHeight / 2;
    const y1 = mid(dl), y2 = mid(bl);
    for (const a of D.arrows) {
      const x1 = a.issued_s * p, x2 = a.ready_s * p;
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", "arrow");
      g.setAttribute("data-task", a.task_id);
      const path = document.createElementNS(NS, "path");
      const cx = (x2 - x1) * 0.5;
      path.setAttribute("d", "M" + x1 + "," + (y1 + 7) + " C" + (x1 + cx * 0.3) + "," + (y2 + 2) + " " +
        (x2 - cx) + "," + y2 + " " + (x2 - 9) + "," + y2);
      path.setAttribute("stroke", a.color);
      path.setAttribute("marker-end", "url(#arrowhead)");
      g.appendChild(path);
      const text = document.createElementNS(NS, "text");
      text.setAttribute("x", (x1 + x2) / 2);
      text.setAttribute("y", y2 - 5);
      text.setAttribute("text-anchor", "middle");
      text.setAttribute("fill", a.color);
      text.textContent = a.label;
      g.appendChild(text);
      arrows.appendChild(g);
    }
  }

  function setZoom(v) {
    timeline.style.setProperty("--pps", v);
    timeline.classList.toggle("dense", v * D.unit_s < 34);
    drawArrows();
  }
  zoom.addEventListener("input", () => setZoom(parseFloat(zoom.value)));

  // Fit the whole session in the window when words stay legible (>= 100 px/s), else start at
  // 100 px/s and scroll; the zoom slider goes from overview to word level.
  const avail = Math.max(300, timeline.clientWidth - labelW() - 24);
  const fit = Math.max(100, Math.min(220, Math.floor(avail / D.end_s)));
  zoom.value = fit;
  setZoom(fit);
  applyToggles();
  setT(0);
  window.addEventListener("resize", drawArrows);

  window.preview = { seek, play, pause, setZoom, state, audios, active, data: D };
})();
"""
