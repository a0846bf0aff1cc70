#!/usr/bin/env python3
"""The public API of every published crate, as one line per item, checked against the committed
snapshot in `tests/public-api/` so that no change to what users can name goes unnoticed.

    python3 scripts/public_api.py check   # CI: fails and prints the diff on any change
    python3 scripts/public_api.py bless   # rewrites the snapshot after an intended change

It reads rustdoc's JSON output (`--output-format json`, unstable: the pinned toolchain's rustdoc
is run through `scripts/rustdoc-json`, which sets `RUSTC_BOOTSTRAP=1` for rustdoc alone so the
dependencies' build stays shared with `cargo doc`). Each line is an item's path and kind with
its signature: functions with their parameters and result, struct fields, enum variants, trait
methods, constants and statics with their types, and the traits each type implements
(auto traits and blanket implementations left out). Every feature of each crate is on but the
shipped packs' (`pack-*`, `all-packs`, `shipped-packs`: data, not API), so an item behind a
feature is part of the snapshot too.
"""

import difflib
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "public-api"
# (package, library name): every crate a user can depend on.
CRATES = [
    ("charter-tools", "charter"),
    ("charter-runtime", "charter_runtime"),
    ("charter-build", "charter_build"),
    ("charter-openapi", "charter_openapi"),
    ("charter-schema", "charter_schema"),
    ("charter-terms", "charter_terms"),
    ("charter-macros", "charter_macros"),
    ("charter-adapters", "charter_adapters"),
    ("charter-mcp", "charter_mcp"),
    ("charter-cli", "charter_cli"),
]
AUTO = {"Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe", "Freeze", "StructuralPartialEq"}


def ty(t):
    """A rustdoc JSON type, written as Rust."""
    if t is None:
        return "()"
    (k, v), = t.items()
    if k == "resolved_path":
        return v["path"] + args(v.get("args"))
    if k == "primitive":
        return v
    if k == "generic":
        return v
    if k == "borrowed_ref":
        lt = (v["lifetime"] + " ") if v.get("lifetime") else ""
        return "&" + lt + ("mut " if v["is_mutable"] else "") + ty(v["type"])
    if k == "raw_pointer":
        return "*" + ("mut " if v["is_mutable"] else "const ") + ty(v["type"])
    if k == "slice":
        return "[" + ty(v) + "]"
    if k == "array":
        return "[" + ty(v["type"]) + "; " + v["len"] + "]"
    if k == "tuple":
        return "(" + ", ".join(ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if k == "impl_trait":
        return "impl " + bounds(v)
    if k == "dyn_trait":
        lt = (" + " + v["lifetime"]) if v.get("lifetime") else ""
        return "dyn " + " + ".join(poly(p) for p in v["traits"]) + lt
    if k == "qualified_path":
        tr = v.get("trait")
        if tr:
            return "<" + ty(v["self_type"]) + " as " + tr["path"] + args(tr.get("args")) + ">::" + v["name"]
        return ty(v["self_type"]) + "::" + v["name"]
    if k == "function_pointer":
        return "fn(" + ", ".join(ty(p) for _, p in v["sig"]["inputs"]) + ")" + ret(v["sig"]["output"])
    if k == "infer":
        return "_"
    return k


def args(a):
    if not a:
        return ""
    (k, v), = a.items()
    if k == "angle_bracketed":
        parts = []
        for x in v["args"]:
            (ak, av), = x.items()
            if ak == "type":
                parts.append(ty(av))
            elif ak == "const":
                parts.append(av.get("expr", "_") if isinstance(av, dict) else str(av))
            elif ak == "lifetime":
                parts.append(av)
            else:
                parts.append("_")
        for c in v.get("constraints", []):
            b = c["binding"]
            rhs = ty(b["equality"]["type"]) if "equality" in b and "type" in b["equality"] else bounds(b.get("constraint", []))
            parts.append(c["name"] + " = " + rhs)
        return "<" + ", ".join(parts) + ">" if parts else ""
    if k == "parenthesized":
        return "(" + ", ".join(ty(x) for x in v["inputs"]) + ")" + ret(v.get("output"))
    return ""


def poly(p):
    return p["trait"]["path"] + args(p["trait"].get("args"))


def bounds(bs):
    out = []
    for b in bs:
        if "trait_bound" in b:
            tb = b["trait_bound"]
            m = "?" if tb.get("modifier") == "maybe" else ""
            out.append(m + tb["trait"]["path"] + args(tb["trait"].get("args")))
        elif "outlives" in b:
            out.append(b["outlives"])
        else:
            out.append("use<..>")
    return " + ".join(out)


def ret(o):
    return "" if o is None else " -> " + ty(o)


def generics(g):
    ps = []
    for p in g["params"]:
        kind = p["kind"]
        if "type" in kind and kind["type"].get("is_synthetic"):
            continue
        if "lifetime" in kind:
            ps.append(p["name"])
        elif "type" in kind:
            b = bounds(kind["type"]["bounds"])
            ps.append(p["name"] + (": " + b if b else ""))
        elif "const" in kind:
            ps.append("const " + p["name"] + ": " + ty(kind["const"]["type"]))
    return "<" + ", ".join(ps) + ">" if ps else ""


def fn_sig(name, f):
    h = f["header"]
    q = ("const " if h["is_const"] else "") + ("async " if h["is_async"] else "") + ("unsafe " if h["is_unsafe"] else "")
    ins = []
    for n, t in f["sig"]["inputs"]:
        if n == "self":
            s = ty(t)
            ins.append({"Self": "self", "&Self": "&self", "&mut Self": "&mut self"}.get(s, "self: " + s))
        else:
            ins.append(n + ": " + ty(t))
    return q + "fn " + name + generics(f["generics"]) + "(" + ", ".join(ins) + ")" + ret(f["sig"]["output"])


def hidden(item):
    return any("hidden" in json.dumps(a) for a in item.get("attrs") or [])


class Api:
    def __init__(self, doc):
        self.idx = doc["index"]
        self.paths = doc["paths"]
        self.lines = set()
        self.seen = set()

    def item(self, i):
        return self.idx.get(str(i))

    def attrs(self, it):
        a = it.get("attrs") or []
        return "#[non_exhaustive] " if any("non_exhaustive" in json.dumps(x) for x in a) else ""

    def walk(self, i, path):
        it = self.item(i)
        if it is None:
            return
        key = (i, path)
        if key in self.seen:
            return
        self.seen.add(key)
        (k, v), = it["inner"].items()
        name = it["name"]
        full = path + "::" + name if path and name else (path or name)
        add = self.lines.add
        if k == "module":
            if not v["is_crate"]:
                add(f"pub mod {full}")
            for c in v["items"]:
                child = self.item(c)
                # `#[doc(hidden)]` items are not API (the compiler's stages, macro support);
                # what a `pub use` names from them is, and is walked from the `use`.
                if child is not None and not hidden(child):
                    self.walk(c, full)
        elif k == "use":
            target = v.get("id")
            if target is not None and str(target) in self.idx:
                if v["is_glob"]:
                    t = self.item(target)
                    (tk, tv), = t["inner"].items()
                    for c in tv.get("items", []) if tk == "module" else []:
                        self.walk(c, path)
                else:
                    t = dict(self.item(target))
                    t["name"] = v["name"]
                    self.idx[f"use:{target}:{v['name']}"] = t
                    self.walk(f"use:{target}:{v['name']}", path)
            else:
                add(f"pub use {path}::{'*' if v['is_glob'] else v['name']} = {v['source']}")
        elif k == "function":
            add(f"pub {fn_sig(full, v)}")
        elif k == "struct":
            add(f"{self.attrs(it)}pub struct {full}{generics(v['generics'])}")
            kind = v["kind"]
            fields = kind.get("plain", {}).get("fields", []) if isinstance(kind, dict) else []
            if isinstance(kind, dict) and "tuple" in kind:
                fields = [f for f in kind["tuple"] if f is not None]
            for f in fields:
                fi = self.item(f)
                add(f"pub {full}.{fi['name']}: {ty(fi['inner']['struct_field'])}")
            self.impls(full, v["impls"])
        elif k == "enum":
            add(f"{self.attrs(it)}pub enum {full}{generics(v['generics'])}")
            for var in v["variants"]:
                vi = self.item(var)
                vk = vi["inner"]["variant"]["kind"]
                shape = ""
                if isinstance(vk, dict) and "tuple" in vk:
                    shape = "(" + ", ".join(ty(self.item(f)["inner"]["struct_field"]) for f in vk["tuple"] if f is not None) + ")"
                elif isinstance(vk, dict) and "struct" in vk:
                    shape = " { " + ", ".join(self.item(f)["name"] + ": " + ty(self.item(f)["inner"]["struct_field"]) for f in vk["struct"]["fields"]) + " }"
                add(f"pub {full}::{vi['name']}{shape}")
            self.impls(full, v["impls"])
        elif k == "union":
            add(f"pub union {full}")
            self.impls(full, v["impls"])
        elif k == "trait":
            add(f"pub trait {full}{generics(v['generics'])}")
            for m in v["items"]:
                self.assoc(full, self.item(m))
        elif k in ("constant", "static"):
            t = v["type"] if k == "constant" else v["type"]
            add(f"pub {'const' if k == 'constant' else 'static'} {full}: {ty(t)}")
        elif k == "type_alias":
            add(f"pub type {full}{generics(v['generics'])} = {ty(v['type'])}")
        elif k == "macro":
            add(f"macro {full}!")
        elif k == "proc_macro":
            kind = v["kind"]
            add(f"proc_macro {kind} {full}" + ("!" if kind == "bang" else ""))
        elif k == "trait_alias":
            add(f"pub trait alias {full}")

    def assoc(self, owner, m):
        if m is None:
            return
        (k, v), = m["inner"].items()
        if k == "function":
            self.lines.add(f"pub {fn_sig(owner + '::' + m['name'], v)}")
        elif k == "assoc_const":
            self.lines.add(f"pub const {owner}::{m['name']}: {ty(v['type'])}")
        elif k == "assoc_type":
            self.lines.add(f"pub type {owner}::{m['name']}")

    def impls(self, owner, impls):
        for i in impls:
            it = self.item(i)
            if it is None:
                continue
            im = it["inner"]["impl"]
            if im.get("is_synthetic") or im.get("blanket_impl") is not None:
                continue
            tr = im.get("trait")
            if tr is not None:
                if tr["path"] in AUTO:
                    continue
                neg = "!" if im.get("is_negative") else ""
                self.lines.add(f"impl {neg}{tr['path']}{args(tr.get('args'))} for {owner}")
                continue
            for m in im["items"]:
                mi = self.item(m)
                if mi is not None and mi.get("visibility") == "public":
                    self.assoc(owner, mi)


def features(package):
    """Every feature of `package` but the packs' (comma-separated; empty when it has none)."""
    manifest = ROOT / "Cargo.toml" if package == "charter-tools" else ROOT / package / "Cargo.toml"
    declared = tomllib.loads(manifest.read_text()).get("features", {})
    packs = lambda f: f.startswith("pack-") or f in ("all-packs", "shipped-packs", "default")
    return ",".join(sorted(f for f in declared if not packs(f)))


def surface(package, lib):
    env = dict(os.environ, RUSTDOC=str(ROOT / "scripts" / "rustdoc-json"))
    subprocess.run(
        ["cargo", "rustdoc", "-q", "-p", package, "--lib", "--features", features(package), "--", "-Z",
         "unstable-options", "--output-format", "json", "--document-hidden-items"],
        cwd=ROOT, env=env, check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    doc = json.loads((target / "doc" / f"{lib}.json").read_text())
    api = Api(doc)
    api.walk(doc["root"], "")
    return "".join(line + "\n" for line in sorted(api.lines, key=order))


def order(line):
    """Each module or type, then its members, then the traits it implements."""
    path = re.search(r"charter\w*(?:::\w+)*(?:\.\w+)?", line.split(" for ")[-1] if line.startswith("impl ") else line).group(0)
    if line.startswith("impl "):
        return (path, 2, line)
    if re.match(r"(#\[non_exhaustive\] )?pub (struct|enum|trait|mod|union) ", line):
        return (path, 0, line)
    parent = re.sub(r"(::\w+|\.\w+)$", "", path)
    return (parent, 1, line)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    if mode not in ("check", "bless"):
        sys.exit("usage: scripts/public_api.py check|bless")
    SNAPSHOT.mkdir(parents=True, exist_ok=True)
    changed = []
    for package, lib in CRATES:
        text = surface(package, lib)
        path = SNAPSHOT / f"{package}.txt"
        old = path.read_text() if path.exists() else ""
        if text == old:
            continue
        changed.append(package)
        if mode == "bless":
            path.write_text(text)
        else:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), f"a/{path.relative_to(ROOT)}", f"b/{path.relative_to(ROOT)}"))
    total = sum(len((SNAPSHOT / f"{p}.txt").read_text().splitlines()) for p, _ in CRATES if (SNAPSHOT / f"{p}.txt").exists())
    if changed and mode == "check":
        sys.exit(f"public API changed in {', '.join(changed)}: if intended, run `python3 scripts/public_api.py bless` and commit tests/public-api/")
    print(f"public API: {len(CRATES)} crates, {total} items" + (f" (rewritten: {', '.join(changed)})" if changed else ", unchanged"))


if __name__ == "__main__":
    main()
