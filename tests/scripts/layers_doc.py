#!/usr/bin/env python3
"""docs/ARCHITECTURE.md's library dependency block agrees with CMake's link graph.

   layers_doc.py GRAPH.dot ARCHITECTURE.md     compare (exit 1 with the differences)
   layers_doc.py GRAPH.dot                     print the block CMake's graph gives

GRAPH.dot is `cmake --graphviz` output (tests/scripts/layers_doc.sh makes it). Only the tosakit_* static libraries
of src/ are compared (the doors, tools/tosakit and python/, link what they bind): each line of the block is
  LIBRARY -> PUBLIC DEPENDENCIES ; private: PRIVATE DEPENDENCIES
with the libraries' direct dependencies among themselves, as target_link_libraries states them.
"""
import re
import sys

BEGIN = "<!-- library-graph: begin -->"
END = "<!-- library-graph: end -->"
NODE = re.compile(r'^\s*"(node\d+)" \[ label = "([^"]+)", shape = (\w+) \];')
EDGE = re.compile(r'^\s*"(node\d+)" -> "(node\d+)"\s*(\[ style = (\w+) \])?')


def cmake_graph(dot_path):
    labels, shapes, edges = {}, {}, []
    with open(dot_path) as f:
        for line in f:
            m = NODE.match(line)
            if m:
                labels[m.group(1)], shapes[m.group(1)] = m.group(2), m.group(3)
                continue
            m = EDGE.match(line)
            if m:
                edges.append((m.group(1), m.group(2), m.group(4) or "solid"))
    libs = {n for n, l in labels.items() if shapes[n] == "octagon" and l.startswith("tosakit_") and l != "tosakit_shared"}
    graph = {labels[n]: ({}, {}) for n in libs}
    for a, b, style in edges:
        if a in libs and b in libs:
            pub, priv = graph[labels[a]]
            (priv if style == "dotted" else pub)[labels[b]] = True
    return {k: (sorted(p), sorted(q)) for k, (p, q) in graph.items()}


def format_line(lib, pub, priv):
    line = f"{lib} -> {' '.join(pub)}".rstrip()
    return line + (f" ; private: {' '.join(priv)}" if priv else "")


def doc_graph(md_path):
    text = open(md_path).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"{md_path}: no library graph block ({BEGIN} ... {END})")
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    graph = {}
    for line in block.splitlines():
        line = line.strip()
        if "->" not in line or line.startswith("#"):
            continue
        lib, rest = (s.strip() for s in line.split("->", 1))
        pub, _, priv = rest.partition(";")
        priv = priv.strip()
        if priv and not priv.startswith("private:"):
            sys.exit(f"{md_path}: '{line}': expected '; private: ...' after the public dependencies")
        graph[lib] = (sorted(pub.split()), sorted(priv[len("private:"):].split()))
    return graph


def main():
    cm = cmake_graph(sys.argv[1])
    if not cm:
        sys.exit(f"{sys.argv[1]}: no tosakit_* static library in the graph")
    if len(sys.argv) == 2:
        for lib in sorted(cm):
            print(format_line(lib, *cm[lib]))
        return 0
    doc = doc_graph(sys.argv[2])
    diffs = []
    for lib in sorted(set(cm) | set(doc)):
        if lib not in doc:
            diffs.append(f"missing from the doc: {format_line(lib, *cm[lib])}")
        elif lib not in cm:
            diffs.append(f"not a library of the build: {format_line(lib, *doc[lib])}")
        elif cm[lib] != doc[lib]:
            diffs.append(f"doc:   {format_line(lib, *doc[lib])}\n  cmake: {format_line(lib, *cm[lib])}")
    if diffs:
        print(f"{sys.argv[2]}: the library graph differs from CMake's:\n  " + "\n  ".join(diffs))
        return 1
    print(f"layers_doc: {len(cm)} libraries, the doc's graph matches CMake's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
