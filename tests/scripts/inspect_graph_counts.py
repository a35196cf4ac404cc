#!/usr/bin/python3
"""inspect_graph_counts.py MODEL.mlir GRAPH.dot GRAPH.svg: the graph `tosakit graph` drew has one node per
function argument, per non-constant op and per result, and one edge per use of a non-constant value (an op's
operand or a returned value). Expected counts come from the MLIR text (region-free functions as tosakit prints
them: one op per line); the DOT is counted by Graphviz's own `gc`, the SVG by its node/edge groups."""
import re
import subprocess
import sys


def expected(mlir_text):
    constants, nodes, edges = set(), 0, 0
    args = re.search(r"func\.func @main\((.*?)\)\s*->", mlir_text, re.S).group(1)
    nodes += len(re.findall(r"%arg\d+\s*:", args))
    for line in mlir_text.splitlines():
        line = line.strip()
        m = re.match(r"(%[\w#:]+)\s*=\s*(\"?)(tosa\.\w+)\2", line)
        if m:
            if m.group(3) in ("tosa.const", "tosa.const_shape"):
                constants.add(m.group(1))
                continue
            nodes += 1
            operands = re.split(r"\s[{:(<]|\s*\{", line[m.end():], maxsplit=1)[0]
            edges += sum(1 for v in re.findall(r"%[\w#]+", operands) if v not in constants)
        elif line.startswith("return ") or line.startswith("func.return "):
            returned = re.findall(r"%[\w#]+", line.split(":", 1)[0])
            nodes += len(returned)
            edges += sum(1 for v in returned if v not in constants)
    return nodes, edges


def main():
    mlir, dot, svg = sys.argv[1:4]
    want_nodes, want_edges = expected(open(mlir).read())
    gc = subprocess.run(["gc", "-n", "-e", dot], capture_output=True, text=True, check=True).stdout.split()
    dot_nodes, dot_edges = int(gc[0]), int(gc[1])
    svg_text = open(svg).read()
    svg_nodes, svg_edges = svg_text.count('class="node"'), svg_text.count('class="edge"')
    print(f"{mlir}: expected {want_nodes} nodes, {want_edges} edges; dot {dot_nodes}/{dot_edges}; "
          f"svg {svg_nodes}/{svg_edges}")
    ok = (dot_nodes, dot_edges) == (want_nodes, want_edges) == (svg_nodes, svg_edges)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
