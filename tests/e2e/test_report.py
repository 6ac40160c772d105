"""`vsweep report` checked in a real browser: Debian's headless Chromium
loads the page from disk, runs its script, and the test reads the rendered
DOM (--dump-dom): the charts and tables are there with one mark per variant
(or one heat-map cell per grid point), failed variants are marked, the
page's script ran without an error, and a screenshot lands in the build
directory. Expected counts come from the sweep files and from SQL on the
results file, not from the report. A 10^5-variant file reports in < 30 s."""
import html.parser
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (TEST_PLUGINS, TempDirCase, query, run,  # noqa: E402
                        scenario)

OUTDIR = os.environ.get("VSWEEP_TEST_OUTDIR", tempfile.gettempdir())
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# One actor whose behaviour fails at step fail_step (never when -1): a
# 1-axis sweep over fail_step has known failures.
FAILING = """\
vsweep: 1
name: report failures
step: 0.1
duration: 5
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: fail_at, params: {fail_step: -1}}
"""

# fail_step 10, 20, 30, 40 fail within the 50 steps; -1 and 60 do not.
FAIL_SWEEP = """\
vsweep: 1
blocks:
  - grid:
      - {actor: 1, param: behaviour.fail_step, values: [-1, 10, 20, 30, 40, 60]}
"""

RANDOM_SWEEP = """\
vsweep: 1
seed: 3
blocks:
  - random:
      count: 12
      axes:
        - {actor: 1, speed: {uniform: [5, 25]}}
        - {actor: 1, param: behaviour.steering_wheel_deg, value: {uniform: [20, 60]}}
"""

CIRCLE_SHORT = open(scenario("circle.yaml"), encoding="utf-8").read() \
    .replace("duration: 30", "duration: 4")


class Dom(html.parser.HTMLParser):
    """Elements of the rendered page: for each <svg>, its class, data
    attributes and the classes of the marks inside it."""

    def __init__(self):
        super().__init__()
        self.svgs = []      # [(attrs, [(tag, attrs), ...])]
        self.ids = set()
        self.rows = {}      # table id -> number of body rows
        self._svg = None
        self._table = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "svg":
            self._svg = (a, [])
            self.svgs.append(self._svg)
        elif self._svg is not None:
            self._svg[1].append((tag, a))
        if tag == "table":
            self._table.append(a.get("id"))
        if tag == "tr" and self._table and self._table[-1]:
            self.rows[self._table[-1]] = self.rows.get(self._table[-1], 0) + 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self._svg = None
        if tag == "table" and self._table:
            self._table.pop()

    def charts(self, kind):
        return [s for s in self.svgs
                if s[0].get("class", "").split() == ["chart", kind]]


def marks(svg, tag, cls):
    """Elements `tag` inside svg whose class list holds cls."""
    return [a for t, a in svg[1] if t == tag and cls in a.get("class", "").split()]


@unittest.skipIf(CHROMIUM is None, "chromium is not installed (tools/deps.sh)")
class ReportBrowserTest(TempDirCase):
    def browse(self, page, name):
        """The DOM after the page's scripts ran; a screenshot beside it."""
        url = "file://" + os.path.abspath(page)
        common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-dev-shm-usage", "--no-first-run",
                  "--user-data-dir=" + self.path("chromium-" + name)]
        p = subprocess.run(common + ["--dump-dom", url], capture_output=True,
                           text=True, timeout=120, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        shot = os.path.join(OUTDIR, "report-%s.png" % name)
        if os.path.exists(shot):
            os.remove(shot)
        subprocess.run(common + ["--window-size=1400,2000",
                                 "--screenshot=" + shot, url],
                       capture_output=True, timeout=120,
                       stdin=subprocess.DEVNULL)
        self.assertTrue(os.path.getsize(shot) > 10000, shot)
        dom = Dom()
        dom.feed(p.stdout)
        # the page's script ran to its end, and no script error happened
        self.assertIn("js-ready", dom.ids)
        self.assertNotIn("js-error", dom.ids)
        return dom

    def report(self, db, *extra):
        page = self.path("report.html")
        rc, out, err = run("report", db, "-o", page, *extra)
        self.assertEqual(rc, 0, err)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        self.page_text = text
        # self-contained: nothing is fetched from anywhere
        for fetch in ("http://", "https://", "src=", "<link", "@import"):
            self.assertNotIn(fetch, text.replace(
                'xmlns="http://www.w3.org/2000/svg"', ""))
        return page

    def kpis_with_values(self, db):
        cols = [r[1] for r in query(db, "PRAGMA table_info(variant_summary)")
                if r[1] not in ("variant_id", "status", "label", "params")
                and not r[1].endswith("_actor_id")]
        return [c for c in cols
                if query(db, 'SELECT count("%s") FROM variant_summary' % c)[0][0]]

    def test_one_axis_sweep_with_failures(self):
        scn = self.write("s.yaml", FAILING)
        sw = self.write("w.yaml", FAIL_SWEEP)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db,
                         "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        failed = query(db, "SELECT count(*) FROM variant_info "
                           "WHERE status = 'failed'")[0][0]
        self.assertEqual(failed, 4)
        dom = self.browse(self.report(db, "--worst", "2", "--by",
                                      "max_yaw_rate"), "one-axis")
        kpis = self.kpis_with_values(db)
        scatters = dom.charts("scatter")
        # one chart per KPI against the one swept parameter
        self.assertEqual(sorted(s[0]["data-kpi"] for s in scatters),
                         sorted(kpis))
        for s in scatters:
            self.assertEqual(s[0]["data-param"], "actor1.behaviour.fail_step")
            self.assertEqual(len(marks(s, "circle", "mark")), 6)
            self.assertEqual(len(marks(s, "circle", "failed")), 4)
            self.assertEqual(len(marks(s, "path", "line")), 1)
        self.assertEqual(dom.charts("heatmap"), [])
        # the failure reasons, grouped: "failing at step 10 as asked" and
        # the three like it with other steps are one reason of 4 variants
        self.assertEqual(dom.rows["failures"], 1 + 1)
        self.assertIn('class="failure" data-n="4"', self.page_text)
        self.assertIn("count-failed", dom.ids)
        # -o never replaces a results file
        rc, _, err = run("report", db, "-o", db)
        self.assertEqual(rc, 2)
        self.assertEqual(query(db, "SELECT count(*) FROM variant_info"),
                         [(6,)])
        # the worst two, with trajectory and speed charts
        self.assertEqual(dom.rows["worst-table"], 1 + 2)
        self.assertEqual(len([s for s in dom.svgs
                              if s[0].get("class") == "traj"]), 2)
        self.assertEqual(len([s for s in dom.svgs
                              if s[0].get("class") == "speed"]), 2)

    def test_two_axis_grid_is_a_heat_map(self):
        db = self.path("r.db")
        rc, _, err = run("run", scenario("crossing.yaml"), "--sweep",
                         scenario("crossing_speed.yaml"), "-o", db)
        self.assertEqual(rc, 0, err)
        dom = self.browse(self.report(db), "grid")
        kpis = self.kpis_with_values(db)
        heat = dom.charts("heatmap")
        self.assertEqual(sorted(h[0]["data-kpi"] for h in heat), sorted(kpis))
        # crossing_speed.yaml: 31 speeds x 2 starts
        for h in heat:
            self.assertEqual(len(marks(h, "rect", "cell")), 31 * 2)
            self.assertEqual(h[0]["data-param"],
                             "actor2.speed,actor2.waypoints")
        self.assertEqual(dom.charts("scatter"), [])
        # the events table lists every event of the file
        n_events = query(db, "SELECT count(*) FROM event")[0][0]
        self.assertGreater(n_events, 0)
        self.assertEqual(dom.rows["events-table"], 1 + n_events)
        self.assertIn("plugins", dom.rows)
        self.assertEqual(dom.rows["plugins"], 1 + query(
            db, "SELECT count(*) FROM plugin")[0][0])

    def test_random_sweep_scatters_every_variant(self):
        scn = self.write("c.yaml", CIRCLE_SHORT)
        sw = self.write("w.yaml", RANDOM_SWEEP)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db)
        self.assertEqual(rc, 0, err)
        dom = self.browse(self.report(db), "random")
        kpis = self.kpis_with_values(db)
        scatters = dom.charts("scatter")
        # random draws form no grid: a scatter per KPI per parameter
        self.assertEqual(len(scatters), 2 * len(kpis))
        self.assertEqual({s[0]["data-param"] for s in scatters},
                         {"actor1.speed",
                          "actor1.behaviour.steering_wheel_deg"})
        for s in scatters:
            self.assertEqual(len(marks(s, "circle", "mark")), 12)
            self.assertEqual(marks(s, "circle", "failed"), [])
            self.assertEqual(marks(s, "path", "line"), [])
        self.assertEqual(dom.charts("heatmap"), [])


class ReportScaleTest(TempDirCase):
    def test_hundred_thousand_variants_in_under_30_s(self):
        # One real variant gives the schema and the record; 10^5 summary
        # rows (a 400 x 250 grid, every 97th failed) are added in SQL.
        scn = self.write("c.yaml", CIRCLE_SHORT.replace("duration: 4",
                                                        "duration: 0.02"))
        db = self.path("big.db")
        rc, _, err = run("run", scn, "-o", db)
        self.assertEqual(rc, 0, err)
        c = sqlite3.connect(db)
        c.executescript("""
            DELETE FROM summary; DELETE FROM variant;
            WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                                    WHERE n < 99999)
            INSERT INTO variant (variant_id, status, error, params,
                                 wall_seconds)
            SELECT n, CASE WHEN n % 97 = 0 THEN 2 ELSE 1 END,
                   CASE WHEN n % 97 = 0 THEN 'diverged' END,
                   json_object('actor1', json_object(
                       'speed', 1 + n / 250,
                       'behaviour', json_object('steering_wheel_deg',
                                                1 + n % 250))),
                   0.001 FROM i;
            INSERT INTO summary SELECT variant_id,
                   json_extract(params, '$.actor1.speed') * 0.1, 0.01,
                   NULL, 100, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL, NULL
                   FROM variant WHERE status = 1;
            -- The planner's statistics of the file vsweep wrote (one
            -- variant) would understate these tables 10^5-fold; a file
            -- of 10^5 variants holds what ANALYZE finds.
            ANALYZE;
        """)
        c.commit()
        c.close()
        page = self.path("big.html")
        t0 = time.monotonic()
        rc, out, err = run("report", db, "-o", page)
        dt = time.monotonic() - t0
        self.assertEqual(rc, 0, err)
        self.assertLess(dt, 30.0)
        print("report of 10^5 variants: %.2f s, %d bytes" %
              (dt, os.path.getsize(page)), file=sys.stderr)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        self.page_text = text
        self.assertIn('id="count-failed" data-n="%d"' % len(range(0, 100000, 97)),
                      text)
        # a 400 x 250 grid is binned to at most 60 x 60 cells, and says so
        self.assertIn('id="binned"', text)
        self.assertIn('data-cells="%d"' % (60 * 60), text)


if __name__ == "__main__":
    unittest.main()
