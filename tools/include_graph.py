#!/usr/bin/env python3
"""The folder-level include graph of core/: which core folder includes
which. Prints one line per folder ("input -> common, map, plugin, yaml")
and exits 1 when the graph has a cycle, naming it ("cycle: input -> map ->
input"). Includes inside one folder are not edges: a folder is one module.

  tools/include_graph.py [CORE_DIR]     # default: core/ next to tools/

An include resolves as the compiler's -I core -I core/include do: the
first path component of "X/file.h" under core/ is folder X; a header under
core/include/ (the plugin SDK, <vsweep/plugin.h>) is folder "include".
System headers resolve to neither and are left out."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def folder_of(core, name):
    """The core folder an include names, or None (a system header)."""
    if os.path.isfile(os.path.join(core, name)) and "/" in name:
        return name.split("/", 1)[0]
    if os.path.isfile(os.path.join(core, "include", name)):
        return "include"
    return None


def graph(core):
    edges = {}
    for folder in sorted(os.listdir(core)):
        top = os.path.join(core, folder)
        if not os.path.isdir(top):
            continue
        deps = edges.setdefault(folder, set())
        for dirpath, _, files in os.walk(top):
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    text = fh.read()
                for name in INCLUDE.findall(text):
                    to = folder_of(core, name)
                    if to and to != folder:
                        deps.add(to)
    return edges


def find_cycle(edges):
    """One cycle as a list of folders (first == last), or None."""
    state = {}  # folder -> 1 on the DFS stack, 2 done
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    core = argv[1] if len(argv) > 1 else os.path.join(here, "..", "core")
    if not os.path.isdir(core):
        print("include_graph.py: %s: no such folder" % core, file=sys.stderr)
        return 2
    edges = graph(core)
    for n in sorted(edges):
        print("%s -> %s" % (n, ", ".join(sorted(edges[n])) or "(nothing)"))
    cycle = find_cycle(edges)
    if cycle:
        print("cycle: " + " -> ".join(cycle))
        return 1
    print("no cycle between core folders")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
