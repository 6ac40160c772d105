#!/usr/bin/env python3
"""Every YAML key the readers accept is documented: each key that
list_keys prints (from the code's own tables) must appear in backticks in
some docs/*.md of the repository, as `key` or as a word of a longer
inline-code span (`speed: {values: [5, 10]}` documents speed and values).
Fenced code blocks do not count: a key needs its word in the text.

  LIST_KEYS=build/tests/docs/list_keys VSWEEP_SOURCE_ROOT=. test_doc_keys.py

Fails (exit 1) listing every undocumented key with where the reader
accepts it; fails too when docs/ holds no .md file."""
import glob
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
SPAN = re.compile(r"(`+)(.+?)\1", re.S)
WORD = re.compile(r"[A-Za-z0-9_.]+")


def documented_words(docs):
    words = set()
    for path in docs:
        with open(path, encoding="utf-8") as f:
            text = FENCE.sub("", f.read())
        for _, span in SPAN.findall(text):
            span = span.strip()
            words.add(span)
            words.update(WORD.findall(span))
    return words


def main():
    root = os.environ.get("VSWEEP_SOURCE_ROOT",
                          os.path.join(os.path.dirname(__file__), "..", ".."))
    exe = os.environ["LIST_KEYS"]
    out = subprocess.run([exe], capture_output=True, text=True)
    if out.returncode != 0:
        print("list_keys failed:\n" + out.stderr)
        return 1
    where = {}
    for line in out.stdout.splitlines():
        mapping, key = line.split("\t")
        where.setdefault(key, []).append(mapping)
    docs = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    if not docs:
        print("no docs/*.md under %s: %d keys undocumented" % (root, len(where)))
        return 1
    words = documented_words(docs)
    missing = sorted(k for k in where if k not in words)
    print("%d keys checked against %d files in docs/" % (len(where), len(docs)))
    for k in missing:
        print("undocumented: `%s` (in %s)" % (k, "; ".join(where[k])))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
