#!/usr/bin/env python3
"""Writes a C file defining `const char NAME[]` with the text of a file."""
import sys

name, src, dst = sys.argv[1:4]
text = open(src, encoding="utf-8").read()
with open(dst, "w", encoding="utf-8") as out:
    out.write("/* generated from %s; do not edit */\n" % src.split("/")[-1])
    out.write("extern const char %s[];\n" % name)
    out.write("const char %s[] =\n" % name)
    for line in text.splitlines(True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        out.write('"%s"\n' % esc)
    out.write(";\n")
