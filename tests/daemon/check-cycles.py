#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-cycles.py: fail when the modules of a source tree depend on each
other in a circle.

    check-cycles.py SRC_DIR [--build BUILD_DIR] [--allow FILE] [-v]
    check-cycles.py --self-test

What a module is.  A module is one .c file together with the header of
the same name beside it (config.c + config.h).  A header with no .c of
its name is a module of its own: an interface several files implement
(daemon.h, sinks/sink.h, sources/source.h, transports/transport.h); it
depends on what it includes, never on its implementers, so files that
share daemon.h are separate modules and two of them calling each other
(daemon-commands.c <-> daemon-faults.c) is a cycle.  A .c with no header
of its name (barod.c, sources/sim.c) is a module of its own.

What an edge is.  A -> B when a file of A has #include "B.h" (resolved
as the compiler does for quotes: beside the including file, then in
SRC_DIR; headers from elsewhere, the libraries', are not modules here),
and, given --build, when A's object file uses a symbol B's object file
defines (nm: U in A, T/D/B/R/... in B).  The objects are found through
BUILD_DIR/compile_commands.json, so no object name is guessed.  Without
--build only the includes count (a note says so).

--allow FILE: edges "A -> B" (one a line, # comments) left out before the
search: cycles that are someone else's open work, each with its reason.
An allowed edge that no longer exists is reported, so the list shrinks.

Exit 0 when there is no cycle; 1 naming each cycle (A -> B -> A) and the
files and symbols behind each step; 2 on bad usage.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path, root):
    """The module name of a .c or .h path: its path under root without
    the extension, the .c and the .h of one name being one module."""
    rel = os.path.relpath(path, root)
    return os.path.splitext(rel)[0]


def source_files(root):
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.join(d, f)


def include_edges(root):
    """{(A, B): [why, ...]} from #include "..." lines."""
    edges = {}
    for path in source_files(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        a = module_of(path, root)
        for name in INCLUDE.findall(text):
            for base in (os.path.dirname(path), root):
                target = os.path.normpath(os.path.join(base, name))
                if os.path.isfile(target):
                    b = module_of(target, root)
                    if a != b:
                        edges.setdefault((a, b), []).append(
                            "%s includes \"%s\"" %
                            (os.path.relpath(path, root), name))
                    break
    return edges


def objects(build, root):
    """{module: object path} for every object compiled from root."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    out = {}
    root = os.path.realpath(root)
    for c in commands:
        src = os.path.realpath(os.path.join(c["directory"], c["file"]))
        if not src.startswith(root + os.sep) or not src.endswith(".c"):
            continue
        obj = os.path.join(c["directory"], c["output"])
        if os.path.isfile(obj):
            out[module_of(src, root)] = obj
    return out


def nm_symbols(obj):
    """(defined, undefined) global symbol names of one object."""
    res = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                         check=True)
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind.isupper() and kind not in ("N", "W", "V"):
            defined.add(name)
    return defined, undefined


def symbol_edges(build, root):
    objs = objects(build, root)
    if not objs:
        raise SystemExit("check-cycles: no objects of %s in %s (build it "
                         "first)" % (root, build))
    syms = {m: nm_symbols(o) for m, o in objs.items()}
    owner = {}
    for m, (defined, _) in syms.items():
        for s in defined:
            owner[s] = m
    edges = {}
    for a, (_, undefined) in syms.items():
        for s in sorted(undefined):
            b = owner.get(s)
            if b and b != a:
                edges.setdefault((a, b), []).append("uses %s" % s)
    return edges, len(objs)


def read_allow(path):
    allowed = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"(\S+)\s*->\s*(\S+)", line)
            if not m:
                raise SystemExit("%s:%d: expected 'A -> B'" % (path, n))
            allowed[(m.group(1), m.group(2))] = n
    return allowed


def strongly_connected(nodes, succ):
    """Tarjan's components, iteratively (no recursion limit)."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(succ.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
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
                        comps.append(sorted(comp))
    return comps


def one_cycle(comp, succ):
    """A shortest cycle through the component's first node (BFS)."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(succ.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def check(root, build=None, allow=None, verbose=False, out=sys.stdout):
    edges = include_edges(root)
    note = "includes only (no --build)"
    if build:
        sym, nobj = symbol_edges(build, root)
        for k, why in sym.items():
            edges.setdefault(k, []).extend(why)
        note = "includes and nm on %d objects" % nobj
    allowed = read_allow(allow) if allow else {}
    status = 0
    for e in sorted(allowed):
        if build and e not in edges:
            print("note: allowed edge %s -> %s no longer exists: drop it "
                  "from %s" % (e[0], e[1], allow), file=out)
    succ = {}
    nodes = set()
    for (a, b) in edges:
        nodes.update((a, b))
        if (a, b) not in allowed:
            succ.setdefault(a, set()).add(b)
    if verbose:
        for (a, b), why in sorted(edges.items()):
            print("%s -> %s: %s%s" % (a, b, "; ".join(why[:3]),
                                      " (allowed)" if (a, b) in allowed
                                      else ""), file=out)
    comps = strongly_connected(nodes, succ)
    for comp in comps:
        cyc = one_cycle(comp, succ)
        print("cycle: %s" % " -> ".join(cyc), file=out)
        for a, b in zip(cyc, cyc[1:]):
            print("  %s -> %s: %s" % (a, b, "; ".join(edges[(a, b)][:4])),
                  file=out)
        if len(comp) > len(cyc) - 1:
            print("  (one knot of %d modules: %s)" %
                  (len(comp), ", ".join(comp)), file=out)
        status = 1
    print("%s: %d modules, %d edges (%s, %d allowed), %s" %
          (root, len(nodes), len(edges), note, len(allowed),
           "%d cycle(s)" % len(comps) if comps else "no cycle"), file=out)
    return status


# ---- the self-test: the check must fail on a cycle of each kind ----

FIXTURES = {
    # a.c calls b_f (and includes b.h); b.c calls a_f through its own
    # declaration, so only nm sees the way back.
    "symbols": {
        "a.h": "int a_f(void);\n",
        "a.c": '#include "a.h"\n#include "b.h"\nint a_f(void) '
               '{ return b_f(); }\n',
        "b.h": "int b_f(void);\n",
        "b.c": '#include "b.h"\nint a_f(void);\nint b_f(void) '
               '{ return 0; }\nint b_g(void) { return a_f(); }\n',
    },
    # Headers that include each other through a third.
    "includes": {
        "x.h": '#pragma once\n#include "sub/y.h"\n',
        "sub/y.h": '#pragma once\n#include "z.h"\n',
        "z.h": '#pragma once\n#include "x.h"\n',
        "z.c": '#include "z.h"\n',
    },
    # The same calls downward only: must pass.
    "clean": {
        "a.h": "int a_f(void);\n",
        "a.c": '#include "a.h"\n#include "b.h"\nint a_f(void) '
               '{ return b_f(); }\n',
        "b.h": "int b_f(void);\n",
        "b.c": '#include "b.h"\nint b_f(void) { return 0; }\n',
    },
}


def build_fixture(top, name):
    root = os.path.join(top, name, "src")
    build = os.path.join(top, name, "build")
    os.makedirs(build)
    cmds = []
    for rel, text in FIXTURES[name].items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    for rel in FIXTURES[name]:
        path = os.path.join(root, rel)
        if rel.endswith(".c"):
            obj = rel.replace("/", "_") + ".o"
            subprocess.run([os.environ.get("CC", "cc"), "-I", root, "-c", path,
                            "-o",
                            os.path.join(build, obj)], check=True)
            cmds.append({"directory": build, "file": path, "output": obj})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(cmds, f)
    return root, build


def self_test():
    import io
    failures = 0
    with tempfile.TemporaryDirectory() as top:
        cases = [("symbols", True, True, "a -> b -> a"),
                 ("symbols", False, False, None),
                 ("includes", True, True, "sub/y -> z -> x -> sub/y"),
                 ("clean", True, False, None)]
        built = {}
        for name, with_build, want_fail, want in cases:
            if name not in built:
                built[name] = build_fixture(top, name)
            root, build = built[name]
            text = io.StringIO()
            rc = check(root, build if with_build else None, out=text)
            ok = (rc == 1) == want_fail and (want is None or
                                             ("cycle: " + want) in
                                             text.getvalue())
            print("%s %s%s: exit %d" % ("ok  " if ok else "FAIL", name,
                                         "" if with_build else
                                         " (includes only)", rc))
            if not ok:
                print(text.getvalue())
                failures += 1
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("root", nargs="?")
    p.add_argument("--build")
    p.add_argument("--allow")
    p.add_argument("--self-test", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args()
    if a.self_test:
        return self_test()
    if not a.root:
        p.error("SRC_DIR is needed")
    return check(a.root, a.build, a.allow, a.verbose)


if __name__ == "__main__":
    sys.exit(main())
