"""-j 1 and -j 2 store bit-identical rows."""
import sys
import unittest

sys.path.insert(0, __import__("os").path.dirname(__file__))
from vsweep_e2e import TempDirCase, dump, run, scenario  # noqa: E402


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
