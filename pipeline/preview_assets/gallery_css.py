"""CSS of the gallery page (one card per scenario family, linking to its preview page)."""

CSS = r"""
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #1a202c; background: #f7fafc; }
header { padding: 16px 22px 10px; background: #fff; border-bottom: 1px solid #e2e8f0; }
header h1 { margin: 0 0 4px; font-size: 19px; }
header p { margin: 0; color: #4a5568; }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 16px; padding: 18px 22px; }
.card { background: #fff; border: 1px solid #e2e8f0; border-radius: 8px; overflow: hidden;
        box-shadow: 0 1px 2px rgba(0,0,0,.04); display: flex; flex-direction: column; }
.card:hover { box-shadow: 0 3px 10px rgba(0,0,0,.10); }
.card a.thumb { display: block; background: #fff; border-bottom: 1px solid #edf2f7; }
.card img { display: block; width: 100%; height: auto; }
.card .body { padding: 10px 12px; }
.card h2 { margin: 0 0 2px; font-size: 15px; }
.card h2 a { color: #2b6cb0; text-decoration: none; }
.card .id { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; color: #4a5568; word-break: break-all; }
.card .facts { color: #4a5568; font-size: 12px; margin: 4px 0; }
.chips { display: flex; flex-wrap: wrap; gap: 3px; }
.chip { display: inline-flex; align-items: center; gap: 4px; font-size: 11px; padding: 1px 6px;
        border-radius: 9px; background: #edf2f7; }
.chip i { width: 9px; height: 9px; border-radius: 2px; background: var(--c); display: inline-block; }
"""
