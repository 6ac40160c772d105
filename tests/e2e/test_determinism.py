"""-j 1 and -j 2 store bit-identical rows."""
import sqlite3
import sys
import unittest

sys.path.insert(0, __import__("os").path.dirname(__file__))
from vsweep_e2e import TempDirCase, run, scenario  # noqa: E402


def dump(db):
    """Every stored row, wall-clock time excluded, floats as exact bits."""
    c = sqlite3.connect(db)
    out = {}
    for table, cols in [("state", "rowid, *"), ("actor", "*"),
                        ("variant", "variant_id, status, error, params, "
                                    "row_lo, row_hi"),
                        ("plugin", "name, kind, version, digest")]:
        rows = c.execute("SELECT %s FROM %s ORDER BY 1, 2" % (cols, table))
        out[table] = [tuple(v.hex() if isinstance(v, float) else v
                            for v in r) for r in rows]
    c.close()
    return out


class DeterminismTest(TempDirCase):
    def test_thread_count_does_not_change_results(self):
        dumps = []
        for j in ("1", "2"):
            db = self.path("j%s.db" % j)
            rc, _, err = run("run", scenario("two_cars.yaml"), "--sweep",
                             scenario("two_cars_sweep.yaml"), "-o", db,
                             "-j", j)
            self.assertEqual(rc, 0, err)
            dumps.append(dump(db))
        a, b = dumps
        self.assertGreater(len(a["state"]), 8 * 2 * 2000)
        self.assertEqual(len(a["variant"]), 8)
        for table in a:
            self.assertEqual(a[table], b[table], table)


if __name__ == "__main__":
    unittest.main()
