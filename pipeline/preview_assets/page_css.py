"""CSS of the single-trajectory preview page.

Positions on the time axis are pure CSS: an element carries ``--s`` / ``--e`` (seconds) and the
timeline carries ``--pps`` (pixels per second), so zooming only changes one variable.
"""

CSS = r"""
:root { --label-w: 178px; --ink: #1a202c; --muted: #4a5568; --line: #e2e8f0; --bg: #f7fafc; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--ink); background: var(--bg); }
header { padding: 12px 18px 8px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 17px; margin: 0 0 4px; font-weight: 650; }
header h1 .scenario { display: inline-block; font-size: 12px; font-weight: 600; padding: 2px 8px;
       margin-left: 8px; border-radius: 10px; background: #ebf4ff; color: #2b6cb0; vertical-align: 2px; }
header .facts { color: var(--muted); display: flex; flex-wrap: wrap; gap: 4px 16px; }
header .facts b { color: var(--ink); font-weight: 600; }
header .back { float: right; font-size: 12px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 12px; margin-top: 6px; font-size: 12px; }
.legend span { display: inline-flex; align-items: center; gap: 4px; }
.sw { width: 11px; height: 11px; border-radius: 3px; background: var(--c); display: inline-block; flex: none; }
.note { color: var(--muted); font-size: 12px; margin-top: 6px; }
.note b { color: var(--ink); }

.transport { position: sticky; top: 0; z-index: 30; display: flex; flex-wrap: wrap; align-items: center;
       gap: 8px 14px; padding: 8px 18px; background: #fff; border-bottom: 1px solid var(--line);
       box-shadow: 0 1px 3px rgba(0,0,0,.05); }
.transport button { font: inherit; cursor: pointer; border: 1px solid #cbd5e0; background: #fff;
       border-radius: 6px; padding: 4px 10px; color: var(--ink); }
.transport button:hover { background: #edf2f7; }
#play { min-width: 78px; font-weight: 600; }
.toggles { display: inline-flex; border: 1px solid #cbd5e0; border-radius: 7px; overflow: hidden; }
.toggles button { border: 0; border-radius: 0; border-right: 1px solid #cbd5e0; padding: 4px 12px; }
.toggles button:last-child { border-right: 0; }
.toggles button[aria-pressed="true"] { background: #2d3748; color: #fff; }
.clock { font-variant-numeric: tabular-nums; min-width: 190px; }
.clock b { font-weight: 650; }
.transport label { display: inline-flex; align-items: center; gap: 6px; color: var(--muted); }
.transport .msg { color: #c53030; }

.timeline { --pps: 100; overflow-x: auto; overflow-y: hidden; background: #fff; position: relative;
       border-bottom: 1px solid var(--line); }
.tracks { position: relative; width: calc(var(--label-w) + var(--end) * var(--pps) * 1px + 16px); }
.row { display: flex; border-bottom: 1px solid #edf2f7; }
.row.group-start { border-top: 2px solid #cbd5e0; }
.row-label { position: sticky; left: 0; z-index: 12; width: var(--label-w); flex: none; background: #fff;
       padding: 3px 8px; border-right: 1px solid var(--line); display: flex; align-items: center;
       gap: 7px; font-weight: 600; font-size: 12px; }
.row-label small { display: block; font-weight: 400; color: var(--muted); font-size: 11px; }
.row-label .sw { width: 12px; height: 12px; }
.lane, .ruler { position: relative; flex: none; width: calc(var(--end) * var(--pps) * 1px); height: 34px;
       background-image: repeating-linear-gradient(to right, #e2e8f0 0 1px, transparent 1px calc(var(--u) * var(--pps) * 1px));
       cursor: pointer; }
.lane.speech { height: 46px; }
.lane.wave { height: 40px; }
.lane.units-in { height: 50px; }
.lane.units-out { height: 50px; }
.lane.units-labels { height: calc(var(--nl, 1) * 15px + 8px); }
.ruler { height: 24px; background: #f7fafc; }
.tick { position: absolute; left: calc(var(--s) * var(--pps) * 1px); top: 0; bottom: 0;
       border-left: 1px solid #a0aec0; padding-left: 3px; font-size: 11px; color: var(--muted);
       font-variant-numeric: tabular-nums; pointer-events: none; }
.timeline.dense .tick.minor span { display: none; }
.timeline.dense .tick.minor { border-left-color: #e2e8f0; }

.item { position: absolute; left: calc(var(--s) * var(--pps) * 1px);
       width: max(4px, calc((var(--e) - var(--s)) * var(--pps) * 1px)); top: 4px; bottom: 4px;
       background: color-mix(in srgb, var(--c) 18%, white); border: 1px solid color-mix(in srgb, var(--c) 55%, white);
       border-left: 3px solid var(--c); border-radius: 4px; overflow: visible; cursor: pointer; }
.item:hover, .item.hl { box-shadow: 0 0 0 2px color-mix(in srgb, var(--c) 45%, white); z-index: 3; }
.item .txt { position: absolute; left: 4px; top: 50%; transform: translateY(-50%); white-space: nowrap;
       font-size: 11px; font-weight: 600; color: color-mix(in srgb, var(--c) 70%, black); pointer-events: none; }
.item .tag { display: inline-block; font-size: 10px; font-weight: 700; padding: 0 4px; border-radius: 3px;
       color: #fff; background: var(--c); margin-right: 4px; text-transform: uppercase; letter-spacing: .02em; }
.word { position: absolute; left: calc((var(--s) - var(--es)) * var(--pps) * 1px); top: 3px;
       max-width: calc(var(--w, 3) * var(--pps) * 1px - 3px); overflow: hidden; text-overflow: ellipsis;
       white-space: nowrap; font-size: 11px; line-height: 14px; padding: 0 2px; border-radius: 2px;
       color: color-mix(in srgb, var(--c) 75%, black); pointer-events: none;
       border-left: 1px solid color-mix(in srgb, var(--c) 60%, white); }
.word.r1 { top: 19px; }
.item.point { width: 14px; margin-left: -7px; border: 0; background: none; top: 4px; bottom: 4px; }
.item.point::before { content: ""; position: absolute; left: 1px; top: 50%; margin-top: -6px; width: 12px;
       height: 12px; background: var(--c); transform: rotate(45deg); border-radius: 2px;
       box-shadow: 0 0 0 2px #fff; }
.item.point .txt { left: 17px; }
.item.interrupted { border-right: 0; border-top-right-radius: 0; border-bottom-right-radius: 0; }
.unspoken { position: absolute; left: calc(var(--s) * var(--pps) * 1px);
       width: calc((var(--e) - var(--s)) * var(--pps) * 1px); top: 4px; bottom: 4px; border: 1px dashed #e53e3e;
       border-left: 0; border-radius: 0 4px 4px 0; cursor: pointer; overflow: hidden;
       background: repeating-linear-gradient(135deg, #fff5f5 0 6px, #fed7d7 6px 8px); }
.unspoken .txt { position: absolute; left: 6px; right: 3px; top: 50%; transform: translateY(-50%); white-space: nowrap;
       overflow: hidden; text-overflow: ellipsis; background: rgba(255,245,245,.85);
       font-size: 11px; color: #c53030; text-decoration: line-through; text-decoration-thickness: 1.5px;
       pointer-events: none; font-style: italic; }
.cut { position: absolute; left: calc(var(--s) * var(--pps) * 1px); top: 0; bottom: 0; width: 0;
       border-left: 2px dashed #e53e3e; pointer-events: none; z-index: 4; }
.cut span { position: absolute; left: 2px; top: -2px; font-size: 10px; color: #c53030; font-weight: 700;
       background: #fff; padding: 0 2px; border-radius: 2px; white-space: nowrap; }
.flight { position: absolute; left: calc(var(--s) * var(--pps) * 1px);
       width: calc((var(--e) - var(--s)) * var(--pps) * 1px); top: 50%; height: 0;
       border-top: 2px dotted color-mix(in srgb, var(--c) 60%, white); pointer-events: none; }

.wave svg { position: absolute; left: 0; top: 2px; width: 100%; height: calc(100% - 4px); display: block; }
.wave path { fill: var(--c); fill-opacity: .55; stroke: none; }

.unit { position: absolute; left: calc(var(--s) * var(--pps) * 1px); width: calc(var(--u) * var(--pps) * 1px);
       top: 2px; bottom: 2px; border-right: 1px solid #cbd5e0; padding: 2px 4px; overflow: hidden;
       font-size: 11px; cursor: pointer; background: #fbfdff; }
.unit:hover, .unit.hl, .unit-out.hl { outline: 2px solid #3182ce; outline-offset: -2px; z-index: 3; }
.unit.now, .unit-out.now { box-shadow: inset 0 -3px 0 #e53e3e; }
.unit .k { font-weight: 700; color: #2d3748; }
.unit .ut { color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; display: block; }
.chip { display: inline-block; font-size: 10px; line-height: 13px; padding: 0 4px; margin: 1px 2px 0 0;
       border-radius: 3px; color: #fff; background: var(--c, #718096); white-space: nowrap; }
.unit-out { position: absolute; left: calc(var(--s) * var(--pps) * 1px); width: calc(var(--u) * var(--pps) * 1px);
       top: 2px; bottom: 2px; border-right: 1px solid #cbd5e0; padding: 2px 4px; overflow: hidden;
       font-size: 11px; cursor: pointer; }
.unit-out.speak { background: color-mix(in srgb, var(--speak) 22%, white); }
.unit-out.listen { background: repeating-linear-gradient(135deg, #f7fafc 0 5px, #edf2f7 5px 7px); color: var(--muted); }
.unit-out.none { background: #f7fafc; color: #a0aec0; font-style: italic; cursor: default; }
.unit-out .dec { font-weight: 700; font-size: 10px; letter-spacing: .03em; }
.unit-out.speak .dec { color: color-mix(in srgb, var(--speak) 75%, black); }
.unit-out .from { color: var(--muted); font-weight: 400; }
.unit-out .st { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.unit-labels { position: absolute; left: calc(var(--s) * var(--pps) * 1px); width: calc(var(--u) * var(--pps) * 1px);
       top: 2px; bottom: 2px; padding: 1px 2px; overflow: hidden; cursor: pointer; border-right: 1px solid #edf2f7; }
.unit-labels .chip { display: block; width: fit-content; max-width: 100%; overflow: hidden; text-overflow: ellipsis; }

.beyond { position: absolute; top: 0; bottom: 0; right: 0; pointer-events: none; z-index: 6;
       left: calc(var(--label-w) + var(--dur) * var(--pps) * 1px);
       background: repeating-linear-gradient(45deg, rgba(160,174,192,.10) 0 6px, rgba(160,174,192,.22) 6px 8px); }
.playhead { position: absolute; top: 0; bottom: 0; width: 2px; margin-left: -1px; z-index: 20; pointer-events: none;
       left: calc(var(--label-w) + var(--t, 0) * var(--pps) * 1px); background: #e53e3e;
       box-shadow: 0 0 0 1px rgba(255,255,255,.7); }
.playhead::before { content: ""; position: absolute; top: 0; left: -5px; border: 6px solid transparent;
       border-top: 8px solid #e53e3e; }
svg.arrows { position: absolute; top: 0; left: var(--label-w); overflow: visible; pointer-events: none; z-index: 7; }
svg.arrows path { fill: none; stroke-width: 2; }
svg.arrows text { font-size: 11px; font-weight: 700; paint-order: stroke; stroke: #fff; stroke-width: 4px;
       stroke-linejoin: round; }

#tip { position: fixed; z-index: 100; display: none; max-width: 440px; background: #1a202c; color: #f7fafc;
       border-radius: 6px; padding: 7px 9px; font-size: 12px; box-shadow: 0 4px 14px rgba(0,0,0,.25);
       pointer-events: none; }
#tip h4 { margin: 0 0 4px; font-size: 12px; }
#tip table { border-collapse: collapse; }
#tip td { padding: 1px 6px 1px 0; vertical-align: top; }
#tip td:first-child { color: #a0aec0; white-space: nowrap; }
#tip td:last-child { word-break: break-word; }
details { margin: 10px 18px; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
details summary { cursor: pointer; font-weight: 600; }
details pre { max-height: 320px; overflow: auto; font-size: 11px; white-space: pre-wrap; }
.audio-missing { color: #c53030; }
"""
