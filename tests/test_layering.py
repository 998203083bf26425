"""Imports point one way (DESIGN §4): schemas <- generators <- pipeline <- jobs; model needs only schemas.

A static scan (ast) of every module under the five top-level packages, imports inside functions
included, so a lazy import cannot hide an upward edge or a cycle. Plus one live check: importing
the pipeline stages that realise and check a script does not load the planner.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("schemas", "generators", "pipeline", "jobs", "model")
ALLOWED = {
    "schemas": {"schemas"},
    "generators": {"schemas", "generators"},
    "pipeline": {"schemas", "generators", "pipeline"},
    "jobs": set(LAYERS),
    "model": {"schemas", "model"},
}
# (importer prefix, forbidden target prefix, why)
FORBIDDEN = (
    ("pipeline", "generators.registry", "pipeline realises a Script it is given; planning is a generator's job"),
    ("pipeline", "generators.scenarios", "pipeline realises a Script it is given; planning is a generator's job"),
    ("generators.harness", "generators.banks", "the harness is the truth; text banks word it, not the reverse"),
    ("generators.harness", "generators.text_bank", "the harness is the truth; text banks word it, not the reverse"),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _scan() -> tuple[dict[str, Path], dict[str, set[str]]]:
    """(module -> file, module -> the modules of ours it imports, ancestor packages it runs included)."""
    files = {_module_name(p): p for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        is_pkg = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                targets.add(src)
                targets.update(f"{src}.{a.name}" for a in node.names if f"{src}.{a.name}" in files)
        edges: set[str] = set()
        own_ancestors = {".".join(mod.split(".")[:i]) for i in range(1, mod.count(".") + 1 + is_pkg)}
        for t in targets:
            if t.split(".")[0] not in LAYERS:
                continue
            # importing a.b.c runs a and a.b first; a module's own enclosing packages are already running
            parts = t.split(".")
            for i in range(1, len(parts) + 1):
                anc = ".".join(parts[:i])
                if anc in files and anc not in own_ancestors and anc != mod:
                    edges.add(anc)
        graph[mod] = edges
    return files, graph


def test_imports_point_one_way():
    files, graph = _scan()
    assert len(files) > 50, "the scan found too few modules"
    bad = []
    for mod, targets in sorted(graph.items()):
        layer = mod.split(".")[0]
        for t in sorted(targets):
            if t.split(".")[0] not in ALLOWED[layer]:
                bad.append(f"{mod} -> {t} ({layer} may import only {sorted(ALLOWED[layer])})")
            for src, dst, why in FORBIDDEN:
                if (mod == src or mod.startswith(src + ".")) and (t == dst or t.startswith(dst + ".")):
                    bad.append(f"{mod} -> {t} ({why})")
    assert not bad, "upward or forbidden imports:\n" + "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    _, graph = _scan()
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_realising_a_script_does_not_load_the_planner():
    code = ("import sys, pipeline.render, pipeline.validate, pipeline.stats, pipeline.compose; "
            "bad = sorted(m for m in sys.modules if m == 'generators.registry' or m.startswith('generators.scenarios')); "
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
