"""The README's result tables as printed: each ```sh block followed by
an output block (the cut-in, overtaking, CCR and pedestrian sweeps) is run
as it stands in bash, in a directory whose scenarios/ is the repository's,
with this build's vsweep first on PATH, and what it prints (but vsweep's
own summary line, blank lines and the blanks sqlite3 pads lines with)
must be the README's, character for character. A table the code no longer prints is a
stale document: a reader who runs the command sees something else."""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, VSWEEP, TempDirCase  # noqa: E402

# An ```sh block whose commands run sweeps (vsweep run) followed, after a
# blank line, by a plain block: the output.
BLOCK = re.compile(r"```sh\n((?:(?!```).)*?vsweep run (?:(?!```).)*?)```"
                   r"\n\n```\n((?:(?!```).)*?)```", re.S)


def readme_tables():
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        text = f.read()
    return [(text[:m.start()].count("\n") + 1, m.group(1), m.group(2))
            for m in BLOCK.finditer(text)]


class ReadmeTables(TempDirCase):
    def test_every_table_is_what_its_command_prints(self):
        tables = readme_tables()
        # the cut-in, overtaking, CCR and pedestrian sweeps
        self.assertGreaterEqual(len(tables), 4)
        bindir = self.path("bin")
        os.mkdir(bindir)
        os.symlink(os.path.abspath(VSWEEP), os.path.join(bindir, "vsweep"))
        os.symlink(os.path.join(os.path.abspath(SRC), "scenarios"),
                   self.path("scenarios"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
        for line, commands, want in tables:
            with self.subTest(readme_line=line):
                p = subprocess.run(["bash", "-e", "-c", commands],
                                   cwd=self.path(""), env=env,
                                   capture_output=True, text=True,
                                   timeout=600)
                self.assertEqual(p.returncode, 0, p.stderr)
                # the run's own summary line is not part of the table,
                # sqlite3 -column pads its last column with blanks, and
                # the README puts a blank line between two queries' tables
                got = "".join(l.rstrip() + "\n" for l in
                              p.stdout.splitlines()
                              if l.strip() and not l.startswith("vsweep: "))
                want = "".join(l + "\n" for l in want.splitlines()
                               if l.strip())
                self.maxDiff = None
                self.assertEqual(got, want,
                                 "README.md:%d prints something else" % line)
                for f in os.listdir(self.path("")):  # the next block's -o
                    if f.endswith(".db"):
                        os.remove(self.path(f))


if __name__ == "__main__":
    unittest.main()
