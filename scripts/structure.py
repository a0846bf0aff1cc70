#!/usr/bin/env python3
"""Structure checks for the workspace: module cycles, and the longest functions and files.

    scripts/structure.py cycles        # exit 1 when two modules of a crate use each other
    scripts/structure.py sizes [N]     # the N longest functions and files (tests excluded)
    scripts/structure.py check         # both; exit 1 on a cycle, a function over 120 lines
                                       # or a file over 800 lines

A module's edges are its `crate::` and `super::` paths (in `use` and inline). An edge from a
module to one of its ancestors (a child naming its parent's items) or descendants is scoping,
not a dependency; every other edge is lifted to the two sibling modules it connects under their
common parent, and a cycle among siblings is reported. Method calls between `impl` blocks in
sibling files are not seen (as with `cargo modules`): the split keeps those one-way by design.
"""
import os
import re
import sys

ROOT = os.environ.get("STRUCTURE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def workspace_crates():
    """The src directory of every package of the workspace: the root's and each top-level
    folder's with a Cargo.toml, so a crate added later is checked without being listed here."""
    out = ["src"]
    for name in sorted(os.listdir(ROOT)):
        if os.path.isfile(os.path.join(ROOT, name, "Cargo.toml")) and os.path.isdir(os.path.join(ROOT, name, "src")):
            out.append(f"{name}/src")
    return out


CRATES = workspace_crates()
MAX_FN, MAX_FILE = 120, 800


def modules(src):
    """(module path tuple, file) for every .rs file of a crate's src directory."""
    out = []
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if parts and parts[0] == "bin":
                continue
            out.append((tuple(parts), os.path.join(dirpath, f)))
    return out


def code_lines(path):
    """The file's lines without comments and without its `#[cfg(test)]` module."""
    lines = []
    for line in open(path, encoding="utf-8"):
        if line.strip() == "#[cfg(test)]":
            break
        lines.append(re.sub(r"//.*", "", line))
    return lines


PATH = re.compile(r"\b(crate|super)((?:::\w+)+|::\{)")


def targets(mod, text, known):
    """Modules `mod` names through crate:: and super:: paths."""
    out = set()
    for m in PATH.finditer(text):
        base = () if m.group(1) == "crate" else mod[:-1]
        rest = m.group(2)
        names = []
        if rest == "::{":
            depth, i, cur = 1, m.end(), ""
            while i < len(text) and depth:
                c = text[i]
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                if depth == 1 and c in ",}" or depth == 0:
                    names.append(cur.strip())
                    cur = ""
                elif depth >= 1 and c not in "{":
                    cur += c
                i += 1
            names = [n.split("::")[0].strip() for n in names if n.strip()]
            paths = [base + (n,) for n in names]
        else:
            seg = rest.strip(":").split("::")
            while seg and seg[0] == "super":
                base = base[:-1]
                seg = seg[1:]
            paths = [base + tuple(seg)]
        for p in paths:
            # The longest known module prefix of the path.
            for k in range(len(p), -1, -1):
                if p[:k] in known:
                    out.add(p[:k])
                    break
    return out


def cycles():
    found = []
    for crate in CRATES:
        src = os.path.join(ROOT, crate)
        if not os.path.isdir(src):
            continue
        mods = modules(src)
        known = {m for m, _ in mods}
        graph = {}
        for mod, path in mods:
            text = "".join(code_lines(path))
            for t in targets(mod, text, known):
                if t[:len(mod)] == mod or mod[:len(t)] == t:
                    continue  # ancestor or descendant: scoping
                k = 0
                while mod[k] == t[k]:
                    k += 1
                a, b = mod[:k + 1], t[:k + 1]
                graph.setdefault(a, set()).add(b)
        for cycle in find_cycles(graph):
            found.append((crate, cycle))
    for crate, cycle in found:
        print(f"cycle in {crate}: " + " -> ".join("::".join(m) for m in cycle))
    if not found:
        print("no module cycles")
    return not found


def find_cycles(graph):
    out, state, stack = [], {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                out.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
    return out


FN = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def sizes():
    fns, files = [], []
    for crate in CRATES:
        src = os.path.join(ROOT, crate)
        if not os.path.isdir(src):
            continue
        for mod, path in modules(src):
            lines = code_lines(path)
            rel = os.path.relpath(path, ROOT)
            files.append((len(lines), rel))
            for i, line in enumerate(lines):
                m = FN.match(line)
                if not m or line.rstrip().endswith(";"):
                    continue
                indent = m.group(1)
                j = i
                while j < len(lines) and lines[j].rstrip() != indent + "}":
                    j += 1
                fns.append((j - i + 1, f"{rel}:{i + 1} {m.group(2)}"))
    fns.sort(reverse=True)
    files.sort(reverse=True)
    return fns, files


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else "check"
    if cmd == "cycles":
        sys.exit(0 if cycles() else 1)
    fns, files = sizes()
    if cmd == "sizes":
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
        print("longest functions (lines):")
        for k, name in fns[:n]:
            print(f"  {k:5} {name}")
        print("longest files (lines, without tests):")
        for k, name in files[:n]:
            print(f"  {k:5} {name}")
        return
    ok = cycles()
    for k, name in fns:
        if k > MAX_FN:
            print(f"function over {MAX_FN} lines: {k} {name}")
            ok = False
    for k, name in files:
        if k > MAX_FILE:
            print(f"file over {MAX_FILE} lines: {k} {name}")
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
