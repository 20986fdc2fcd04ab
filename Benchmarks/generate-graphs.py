#!/usr/bin/env python3
"""Writes the object graphs of benchmark rows G1, G2 and G3.

    python3 Benchmarks/generate-graphs.py        # rewrites Sources/GraphG1/G1.swift … GraphG3/G3.swift
                                                 # and Sources/SwinjectShapes/G1Graph.swift

Each graph is a random DAG of classes, generated from a fixed seed so that
every run and every machine measures the same graph:

  * node 0 has no dependency; node i > 0 depends on node i - 1 (so every node
    is reachable from the root, the last node) and on 0, 1 or 2 more distinct
    earlier nodes, chosen at random;
  * G1: 100 nodes, all `.graph`; G2: the same rule with 1 000 nodes;
  * G3: 100 nodes mixing scopes as a request does: the first fifth `.shared`
    (infrastructure: they depend only on each other), the rest `.graph` or
    `.new` at random, the root `.graph`.

Each graph is a module of its own (GraphG1, GraphG2, GraphG3, beside the
GraphWorkloads module that declares `GraphWorkload`): they compile in
parallel, and the allocation check, which resolves G1 only, does not wait for
G2's thousand classes (about ten minutes of a release build on two cores).

For each graph the file holds the classes, the registrations for Syringe, for
the Swift-dict baseline (the same code: its API is Syringe's) and for Swinject
(`.graph` is its default scope, `.container` its `.shared`, `.transient` its
`.new`), and the same graph built by hand: direct initialiser calls in
dependency order, `.shared` nodes made once beforehand, a `.new` node made
afresh for every dependent, as the containers do.

Row W6 resolves G1 through code written once against Swinject's API and
compiled twice, against Swinject and against SyringeSwinject
(Sources/SwinjectShapes, linked from Sources/SyringeSwinjectShapes): G1's
classes and Swinject registrations again, in Sources/SwinjectShapes/G1Graph.swift.
"""

import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "Sources")
SHAPES = os.path.join(HERE, "Sources", "SwinjectShapes")


def make_graph(count, seed):
    rng = random.Random(seed)
    deps = [[]]
    for i in range(1, count):
        extra = rng.randint(0, 2)
        earlier = list(range(0, i - 1))
        picks = rng.sample(earlier, min(extra, len(earlier)))
        deps.append([i - 1] + sorted(picks, reverse=True))
    return deps


def mixed_graph(count, seed):
    """G3: nodes below count/5 are .shared and depend only on each other."""
    rng = random.Random(seed)
    shared = count // 5
    deps, scopes = [], []
    for i in range(count):
        if i < shared:
            scopes.append("shared")
            pool = list(range(0, i))
        else:
            scopes.append("graph" if i == count - 1 else rng.choice(["graph", "new"]))
            pool = list(range(0, i))
        if i == 0:
            deps.append([])
            continue
        extra = rng.randint(0, 2)
        others = [j for j in pool if j != i - 1]
        picks = rng.sample(others, min(extra, len(others)))
        deps.append([i - 1] + sorted(picks, reverse=True))
    return deps, scopes


def reachable(deps, root):
    """The nodes one resolve of `root` reaches."""
    seen, stack = set(), [root]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack.extend(deps[i])
    return seen


def objects_per_resolve(deps, scopes):
    """Objects one resolve of the root creates once the .shared ones exist."""
    made = {}

    def new_count(i):
        # A .new node is made once per dependent, with its own .new subtree.
        if i not in made:
            made[i] = 1 + sum(new_count(d) for d in deps[i] if scopes[d] == "new")
        return made[i]

    total = 0
    for i in reachable(deps, len(deps) - 1):
        if scopes[i] == "graph":
            # Made once, plus the .new dependencies it makes for itself.
            total += new_count(i)
    return total


SWINJECT_SCOPE = {"graph": ".graph", "shared": ".container", "new": ".transient"}


def class_lines(cls, deps):
    lines = []
    for i, d in enumerate(deps):
        if not d:
            lines.append(f"final class {cls(i)} {{ init() {{}} }}")
            continue
        fields = "; ".join(f"let d{k}: {cls(j)}" for k, j in enumerate(d))
        params = ", ".join(f"_ d{k}: {cls(j)}" for k, j in enumerate(d))
        assigns = "; ".join(f"self.d{k} = d{k}" for k in range(len(d)))
        lines.append(f"final class {cls(i)} {{ {fields}; init({params}) {{ {assigns} }} }}")
    return lines


def swinject_registrations(cls, deps, scopes):
    out = []
    for i, d in enumerate(deps):
        args = ", ".join(f"r.resolve({cls(j)}.self)!" for j in d)
        out.append(
            f"    c.register({cls(i)}.self) {{ r in {cls(i)}({args}) }}"
            f".inObjectScope({SWINJECT_SCOPE[scopes[i]]})"
        )
    return out


def swift_file(tag, deps, scopes, seed):
    n = len(deps)
    width = len(str(n - 1))
    cls = lambda i: f"{tag}N{i:0{width}d}"
    edges = sum(len(d) for d in deps)
    objects = objects_per_resolve(deps, scopes)
    syringe_scope = {"graph": ".graph", "shared": ".shared", "new": ".new"}
    lines = [
        "// Generated by Benchmarks/generate-graphs.py; do not edit.",
        f"// {tag}: {n} nodes, {edges} edges, seed {seed:#x}; "
        f"one resolve of the root makes {objects} objects.",
        "import GraphWorkloads",
        "import Swinject",
        "import Syringe",
        "import SyringeOnDictionary",
        "",
    ]
    lines += class_lines(cls, deps)
    lines.append("")

    def registrations(container):
        out = []
        for i, d in enumerate(deps):
            args = ", ".join("try r.resolve()" for _ in d)
            closure = f"{{ r in {cls(i)}({args}) }}" if d else f"{{ _ in {cls(i)}() }}"
            out.append(f"    c.register(type: {cls(i)}.self, in: {syringe_scope[scopes[i]]}) {closure}")
        return out

    lines.append(f"func register{tag}(_ c: Syringe.Container) {{")
    lines += registrations("Syringe")
    lines.append("}")
    lines.append("")
    lines.append(f"func register{tag}(_ c: SyringeOnDictionary.Container) {{")
    lines += registrations("SyringeOnDictionary")
    lines.append("}")
    lines.append("")
    lines.append(f"func register{tag}(_ c: Swinject.Container) {{")
    lines += swinject_registrations(cls, deps, scopes)
    lines.append("}")
    lines.append("")

    # By hand: .shared nodes once, in a holder; .graph nodes as locals in
    # dependency order; a .new node as a fresh initialiser call per use.
    shared_nodes = [i for i in range(n) if scopes[i] == "shared"]
    if shared_nodes:
        lines.append(f"/// {tag}'s `.shared` nodes, made once, as a container keeps them.")
        lines.append(f"final class {tag}Singletons {{")
        for i in shared_nodes:
            lines.append(f"    let n{i}: {cls(i)}")
        lines.append("    init() {")
        for i in shared_nodes:
            args = ", ".join(f"n{j}" for j in deps[i])
            lines.append(f"        n{i} = {cls(i)}({args})")
        lines.append("    }")
        lines.append("}")
        lines.append("")

    def expression(j):
        if scopes[j] == "shared":
            return f"s.n{j}"
        if scopes[j] == "graph":
            return f"n{j}"
        return f"{cls(j)}(" + ", ".join(expression(k) for k in deps[j]) + ")"

    root = n - 1
    needed = reachable(deps, root)
    signature = f"_ s: {tag}Singletons" if shared_nodes else ""
    lines.append("@inline(never)")
    lines.append(f"func build{tag}ByHand({signature}) -> AnyObject {{")
    for i in range(n):
        if i in needed and scopes[i] == "graph":
            args = ", ".join(expression(j) for j in deps[i])
            lines.append(f"    let n{i} = {cls(i)}({args})")
    lines.append(f"    return n{root}")
    lines.append("}")
    lines.append("")

    make_by_hand = (
        f"{{ let s = {tag}Singletons(); return {{ build{tag}ByHand(s) }} }}"
        if shared_nodes
        else f"{{ {{ build{tag}ByHand() }} }}"
    )
    lines += [
        "extension GraphWorkload {",
        f"    public static let {tag.lower()} = GraphWorkload(",
        f"        nodes: {n}, edges: {edges}, objectsPerResolve: {objects},",
        f"        registerSyringe: {{ register{tag}($0) }},",
        f"        resolveSyringe: {{ $0.resolve(type: {cls(root)}.self) }},",
        f"        registerOnDictionary: {{ register{tag}($0) }},",
        f"        resolveOnDictionary: {{ $0.resolve(type: {cls(root)}.self) }},",
        f"        registerSwinject: {{ register{tag}($0) }},",
        f"        resolveSwinject: {{ $0.resolve({cls(root)}.self)! }},",
        f"        makeByHand: {make_by_hand}",
        "    )",
        "}",
        "",
    ]
    return "\n".join(lines)


def shapes_file(tag, deps, seed):
    """W6: the graph against Swinject's API only, for the shapes compiled twice."""
    n = len(deps)
    width = len(str(n - 1))
    cls = lambda i: f"{tag}N{i:0{width}d}"
    edges = sum(len(d) for d in deps)
    scopes = ["graph"] * n
    lines = [
        "// Generated by Benchmarks/generate-graphs.py; do not edit.",
        f"// {tag} ({n} nodes, {edges} edges, seed {seed:#x}) against Swinject's API, for row W6:",
        "// compiled against Swinject here and against SyringeSwinject through the link",
        "// Sources/SyringeSwinjectShapes/Shapes (see Shapes.swift).",
        "#if SYRINGE_SWINJECT",
        "import SyringeSwinject",
        "#else",
        "import Swinject",
        "#endif",
        "",
    ]
    lines += class_lines(cls, deps)
    lines.append("")
    lines.append("/// The root: one resolve builds the whole graph.")
    lines.append(f"typealias {tag}Root = {cls(n - 1)}")
    lines.append("")
    lines.append(f"func register{tag}(_ c: Container) {{")
    lines += swinject_registrations(cls, deps, scopes)
    lines.append("}")
    lines.append("")
    return "\n".join(lines)


def main():
    graphs = [
        ("G1", 0x6A1, lambda seed: (make_graph(100, seed), None)),
        ("G2", 0x6A2, lambda seed: (make_graph(1000, seed), None)),
        ("G3", 0x6A3, lambda seed: mixed_graph(100, seed)),
    ]
    for tag, seed, build in graphs:
        deps, scopes = build(seed)
        if scopes is None:
            scopes = ["graph"] * len(deps)
        text = swift_file(tag, deps, scopes, seed)
        folder = os.path.join(SOURCES, f"Graph{tag}")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{tag}.swift")
        with open(path, "w") as f:
            f.write(text)
        print(path, text.splitlines()[1])
        if tag == "G1":
            os.makedirs(SHAPES, exist_ok=True)
            path = os.path.join(SHAPES, f"{tag}Graph.swift")
            with open(path, "w") as f:
                f.write(shapes_file(tag, deps, seed))
            print(path)


if __name__ == "__main__":
    main()
