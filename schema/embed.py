#!/usr/bin/env python3
"""Writes a C file defining `const char NAME[]` with the bytes of a file
(an initialiser list, not a string literal: C11 promises only 4095-byte
literals)."""
import sys

name, src, dst = sys.argv[1:4]
data = open(src, "rb").read() + b"\0"
with open(dst, "w", encoding="ascii") as out:
    out.write("/* generated from %s; do not edit */\n" % src.split("/")[-1])
    out.write("extern const char %s[];\n" % name)
    out.write("const char %s[] = {\n" % name)
    for i in range(0, len(data), 12):
        out.write("\t" + ", ".join("%d" % b for b in data[i:i + 12]) + ",\n")
    out.write("};\n")
