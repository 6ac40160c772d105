"""`vsweep report` checked in a real browser: Debian's headless Chromium
loads the page from disk, runs its script, and the test reads the rendered
DOM (--dump-dom): the charts and tables are there with one mark per variant
(or one heat-map cell per grid point), failed variants are marked, the
page's script ran without an error, and a screenshot lands in the build
directory. Expected counts come from the sweep files and from SQL on the
results file, not from the report. A 10^5-variant file reports in < 30 s.

Names that come from the file (an FMU's parameter, a KPI column, an event
kind) may hold any character: the page shows them as text, and a name
written as a script or an event handler never runs in the browser. Every
swept parameter is charted, also one only five of 20 005 variants change;
the title is the scenario's YAML name; every KPI has the unit
docs/results.md gives it."""
import html
import html.parser
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import zipfile
from xml.sax.saxutils import quoteattr

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (SRC, TEST_PLUGINS, TempDirCase,  # noqa: E402
                        gated_run, query, run, scenario, stop_held,
                        wait_for)
from test_docs import section_of, sections  # noqa: E402

OUTDIR = os.environ.get("VSWEEP_TEST_OUTDIR", tempfile.gettempdir())
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FMUS = os.environ.get("VSWEEP_TEST_FMU_DIR")

# Script that leaves an element with id "pwned" in the page when it runs;
# names made of it in every context a name lands in: element text, a
# quoted attribute (the '"'), an event handler.
PWN = "document.documentElement.appendChild(document.createElement('i')).id='pwned'"
EVIL = "\"'><script>%s</script><svg/onload=%s>" % (PWN, PWN)
EVIL_PARAM = "Iz" + EVIL
EVIL_KPI = "k" + EVIL
EVIL_KIND = "x" + EVIL

FMU_SCENARIO = """\
vsweep: 1
name: fmu
step: 0.05
duration: 2
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    start: {position: [10, -5, 0], yaw: 0.7}
    speed: 15
    vehicle_model: {fmu: %s, params: {m: 2000, lf: 1.4, l: 3.0, cg_y: 0.1}}
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: 30}}
"""

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

# Head-on on x = 0, or passing at start.x m: the ego drives north (yaw 0)
# at 10 m/s from the origin, the other south from 40 m north. Passing at
# 10 or 20 m, the footprints (1.8 m wide) come within 8.2 and 18.2 m and
# never touch; head-on, the bumpers (35.5 m apart, closing at 20 m/s) meet
# at 1.775 s, and the ego's behaviour fails at step 30 (3 s), after the
# collision: a failed variant with min_distance 0 and one collision.
COLLIDE_THEN_FAIL = """\
vsweep: 1
name: collide then fail
step: 0.1
duration: 4
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: fail_at, params: {fail_step: -1}}
  - id: 2
    asset: car
    start: {position: [0, 40, 0], yaw: 3.141592653589793}
    speed: 10
"""

COLLIDE_SWEEP = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 2, start.x: 10}]
      - [{actor: 2, start.x: 0}, {actor: 1, param: behaviour.fail_step, value: 30}]
      - [{actor: 2, start.x: 20}]
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
        self.text = []      # text nodes, entities decoded
        self.cells = {}     # table id -> [[cell text, ...] per row]
        self._svg = None
        self._table = []
        self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

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
            self.cells.setdefault(self._table[-1], []).append([])
        if tag in ("td", "th") and self._table and self._table[-1]:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells[self._table[-1]][-1].append("".join(self._cell))
            self._cell = None
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

    def test_failed_variants_kpis_count(self):
        """A failed variant's KPIs cover the steps before its failure
        (docs/results.md): its collision is in the KPI table (min, mean,
        max, variants with a value) and the table says how many of those
        are failed variants; the scatters ring it at its value. The table
        used to leave failed variants out: min_distance 8.2, collisions
        max 0."""
        scn = self.write("s.yaml", COLLIDE_THEN_FAIL)
        sw = self.write("w.yaml", COLLIDE_SWEEP)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db,
                         "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        dom = self.browse(self.report(db, "--by", "min_distance"),
                          "collide-then-fail")
        head, *body = dom.cells["kpi-table"]
        rows = {r[0]: r for r in body}

        def nums(kpi):
            return [float(c) for c in rows[kpi][2:]]

        # min, mean, max over the three variants; 3 with a value, 1 failed
        want = {"min_distance": [0, (8.2 + 18.2) / 3, 18.2, 3, 1],
                "collisions": [0, 1 / 3, 1, 3, 1]}
        for kpi, w in want.items():
            for got, exp in zip(nums(kpi), w):
                self.assertAlmostEqual(got, exp, places=4, msg=kpi)
        self.assertEqual(head[-2:], ["variants with a value",
                                     "of them failed"])
        # no KPI counts the failed variant out where it has a value
        self.assertTrue(all(r[-1] == "1" for r in body if r[-2] == "3"),
                        body)
        for s in dom.charts("scatter"):
            if s[0]["data-kpi"] != "collisions":
                continue
            rings = marks(s, "circle", "failed")
            self.assertEqual(len(rings), 1)
            self.assertTrue(rings[0]["data-tip"].endswith(", 1"),
                            rings[0]["data-tip"])

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

    @unittest.skipIf(FMUS is None, "no test FMUs (VSWEEP_TEST_FMU_DIR)")
    def test_names_from_the_file_are_text_not_script(self):
        # st2_local.fmu with its param Iz renamed EVIL_PARAM (FMI allows
        # any name), swept over three values
        fmu = self.path("evil.fmu")
        with zipfile.ZipFile(os.path.join(FMUS, "st2_local.fmu")) as zi, \
                zipfile.ZipFile(fmu, "w") as zo:
            for info in zi.infolist():
                data = zi.read(info.filename)
                if info.filename == "modelDescription.xml":
                    data = data.decode().replace(
                        'name="Iz"', "name=" + quoteattr(EVIL_PARAM)).encode()
                zo.writestr(info, data)
        scn = self.write("s.yaml", FMU_SCENARIO % fmu)
        entry = "      - [{actor: 1, param: '%s', value: %%d}]\n" % (
            "vehicle_model." + EVIL_PARAM).replace("'", "''")
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - list:\n" +
                        "".join(entry % v for v in (3000, 4000, 5000)))
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db,
                         "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 0, err)
        # params is JSON (RFC 8259) holding the name as it is
        self.assertEqual(query(db, "SELECT count(*) FROM variant_info "
                                   "WHERE json_valid(params)"), [(3,)])
        self.assertEqual(query(
            db, "SELECT j.value FROM variant_info v, json_each(v.params, "
                "'$.actor1.vehicle_model') j WHERE j.key = ? ORDER BY "
                "v.variant_id", EVIL_PARAM), [(3000,), (4000,), (5000,)])
        # a KPI column and an event kind of the same making
        c = sqlite3.connect(db)
        view = c.execute("SELECT sql FROM sqlite_master WHERE name = "
                         "'variant_summary'").fetchone()[0]
        at = view.rindex("FROM variant v")
        c.executescript(
            "DROP VIEW variant_summary;" + view[:at].rstrip() +
            ', s.max_yaw_rate AS "%s" ' % EVIL_KPI.replace('"', '""') +
            view[at:] + ";")
        c.execute("INSERT INTO event_row VALUES (0, 3, 1, ?, NULL, ?)",
                  (EVIL_KIND, EVIL_KIND))
        c.commit()
        c.close()
        dom = self.browse(self.report(db, "--worst", "3"), "names")
        # no name ran (browse: and the page's own script ran to its end)
        self.assertNotIn("pwned", dom.ids)
        scatters = dom.charts("scatter")
        self.assertEqual({s[0]["data-param"] for s in scatters},
                         {"actor1.vehicle_model." + EVIL_PARAM})
        self.assertIn(EVIL_KPI, {s[0]["data-kpi"] for s in scatters})
        for s in scatters:
            self.assertEqual(len(marks(s, "circle", "mark")), 3)
        text = "".join(dom.text)
        self.assertIn("Swept parameters: actor1.vehicle_model." + EVIL_PARAM,
                      text)
        self.assertIn(EVIL_KIND, text)
        self.assertIn(EVIL_KPI, text)
        ev = [a for s in dom.svgs for t, a in s[1]
              if "event-mark" in a.get("class", "")]
        self.assertIn(EVIL_KIND, {a.get("data-kind") for a in ev})


def page_units(text):
    """{KPI: unit} from the page's KPI table."""
    body = text[text.index('<table id="kpi-table">'):]
    body = body[:body.index("</table>")]
    return {html.unescape(k): html.unescape(u) for k, u in
            re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td>", body)}


class ReportPageTest(TempDirCase):
    """The page as text: no browser needed."""

    def report_text(self, db):
        page = self.path("p.html")
        rc, out, err = run("report", db, "-o", page)
        self.assertEqual(rc, 0, err)
        with open(page, encoding="utf-8") as f:
            return f.read()

    def test_title_is_the_scenario_name_read_as_yaml(self):
        name = "Joe's cut-in #3 (\"fast\")"
        scn = self.write("c.yaml", CIRCLE_SHORT.replace(
            "name: steady circle",
            "name: \"%s\"  # a comment" % name.replace('"', '\\"')))
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db)
        self.assertEqual(rc, 0, err)
        text = self.report_text(db)
        title = re.search(r"<title>(.*?)</title>", text).group(1)
        self.assertEqual(html.unescape(title), "vsweep report: " + name)
        h1 = re.search(r"<h1>(.*?)</h1>", text).group(1)
        self.assertEqual(html.unescape(h1), "vsweep report: " + name)

    def test_every_kpi_has_the_unit_of_the_docs(self):
        db = self.path("r.db")
        rc, _, err = run("run", scenario("crossing.yaml"), "-o", db)
        self.assertEqual(rc, 0, err)
        units = page_units(self.report_text(db))
        with open(os.path.join(SRC, "docs", "results.md"),
                  encoding="utf-8") as f:
            doc = section_of(sections(f.read()), "variant_summary")
        doc_units = dict(re.findall(r"^\| `(\w+)` \| ([^|]*?) \|", doc,
                                    re.M))
        kpis = [r[1] for r in query(db, "PRAGMA table_info(variant_summary)")
                if r[1] not in ("variant_id", "status", "label", "params")
                and not r[1].endswith("_actor_id")]
        self.assertGreaterEqual(len(kpis), 10)
        for k in kpis:
            # "—" in the docs: a count of events
            want = {"—": "count"}.get(doc_units[k], doc_units[k])
            self.assertEqual(units.get(k), want, k)

    def test_a_start_coordinate_is_in_metres(self):
        """start.x of a sweep is a position: its axis says m (the
        scenario format's unit for positions)."""
        scn = self.write("c.yaml", COLLIDE_THEN_FAIL)
        sw = self.write("s.yaml", COLLIDE_SWEEP)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db,
                         "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)  # one variant fails (fail_at)
        text = html.unescape(self.report_text(db))
        self.assertIn("actor2.start.x (m)", text)
        self.assertNotIn("actor2.start.x ()", text)

    def test_params_that_are_not_json_is_an_error(self):
        db = self.path("r.db")
        rc, _, err = run("run", scenario("crossing.yaml"), "--sweep",
                         scenario("crossing_speed.yaml"), "-o", db)
        self.assertEqual(rc, 0, err)
        c = sqlite3.connect(db)
        c.execute("UPDATE variant SET params = '{\"actor2\":' "
                  "WHERE variant_id = 7")
        c.commit()
        c.close()
        page = self.path("p.html")
        rc, out, err = run("report", db, "-o", page)
        self.assertEqual(rc, 2, out)
        self.assertIn(db, err)
        self.assertIn("params", err)
        self.assertFalse(os.path.exists(page))

    def test_a_parameter_five_variants_change_is_charted(self):
        # 20 000 variants of a grid over steering_wheel_deg, then five
        # that change only the speed (and are the worst): both are swept
        scn = self.write("c.yaml", CIRCLE_SHORT.replace("duration: 4",
                                                        "duration: 0.02"))
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db)
        self.assertEqual(rc, 0, err)
        c = sqlite3.connect(db)
        c.executescript("""
            DELETE FROM summary; DELETE FROM variant;
            WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                                    WHERE n < 20004)
            INSERT INTO variant (variant_id, status, error, params,
                                 wall_seconds)
            SELECT n, 1, NULL, CASE WHEN n < 20000 THEN
                     json_object('actor1', json_object('behaviour',
                         json_object('steering_wheel_deg', 0.01 * (n + 1))))
                   ELSE json_object('actor1', json_object(
                       'speed', 30 + 10 * (n - 20000))) END,
                   0.001 FROM i;
            INSERT INTO summary SELECT variant_id,
                   CASE WHEN variant_id < 20000 THEN 1 ELSE 10 END,
                   0.01, NULL, 100, 0, 0, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL
                   FROM variant;
            ANALYZE;  -- as a run of 20 005 variants leaves it
        """)
        c.commit()
        c.close()
        text = self.report_text(db)
        params = {html.unescape(p) for p in
                  re.findall(r'data-param="([^"]*)"', text)}
        self.assertEqual(params, {"actor1.behaviour.steering_wheel_deg",
                                  "actor1.speed"})


# Two cars; the ego's behaviour (a crash test plugin that drives straight)
# stalls at step 5 of the variant whose trigger is 3 while the gate file
# exists: a run over trigger 0..10 at -j 1 stores 0 to 2 and waits there.
STALLING = """\
vsweep: 1
name: stalled
step: 0.1
duration: 1
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    name: ego
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: crash_segv, params: {armed: -1, stall: 3, stall_seconds: 0}}
  - id: 2
    name: other
    asset: car
    start: {position: [0, 50, 0], yaw: 0}
    speed: 5
"""

ELEVEN = """\
vsweep: 1
blocks:
  - grid:
      - {actor: 1, param: behaviour.trigger, value: {from: 0, to: 10, step: 1}}
"""


def page_text(page):
    """The page's words, tags and entities gone, spaces collapsed."""
    with open(page, encoding="utf-8") as f:
        text = re.sub(r"<[^>]+>", " ", f.read())
    return re.sub(r"\s+", " ", html.unescape(text))


class ReportStateTest(TempDirCase):
    def test_a_stopped_sweep_says_what_is_missing(self):
        """Found in review: the report of a stopped sweep (4800 variants,
        679 stored) said "679 done 0 failed" and nothing else, as if
        finished. Now the page says how many of the sweep's variants (11,
        the sweep file's) are missing, the file's state in status's
        words, and that the page covers only the stored ones; a finished
        file says it has all of them."""
        scn = self.write("s.yaml", STALLING)
        sw = self.write("w.yaml", ELEVEN)
        db = self.path("r.db")
        mark, gate = self.path("stall"), self.path("gate")
        args = ["run", scn, "--sweep", sw, "-j", "1", "--plugin-path",
                os.path.join(TEST_PLUGINS, "crash"), "-o", db]
        with gated_run(args, mark, gate) as p:
            self.assertTrue(wait_for(lambda: os.path.exists(mark), 60),
                            "variant 3 never waited")
            self.assertTrue(wait_for(lambda: "3/11 variants" in
                                     run("status", db)[1], 30))
            self.assertIsNone(p.poll(), "finished before the signal")
            _, err = stop_held(p, signal.SIGINT, gate)
            self.assertEqual(p.returncode, 130, err)
        stored = query(db, "SELECT count(*) FROM variant")[0][0]
        self.assertIn(stored, (3, 4))
        page = self.path("r.html")
        rc, _, err = run("report", db, "-o", page)
        self.assertEqual(rc, 0, err)
        text = page_text(page)
        stopped = "stopped (continue it with vsweep run ... --resume)"
        self.assertIn("Incomplete: %d of the 11 variants of the sweep are "
                      "not stored; the file is %s." % (11 - stored, stopped),
                      text)
        self.assertIn("cover only the %d stored variants" % stored, text)
        self.assertIn("Variants of the sweep: 11 ; stored: %d ; missing: "
                      "%d . State: %s" % (stored, 11 - stored, stopped), text)
        # status words it the same
        self.assertIn(": %s: %d/11 variants" % (stopped, stored),
                      run("status", db)[1])
        # resumed to the end: nothing missing, no warning
        rc, _, err = run(*args[:-2], "-o", db, "--resume")
        self.assertEqual(rc, 0, err)
        rc, _, err = run("report", db, "-o", page)
        self.assertEqual(rc, 0, err)
        text = page_text(page)
        self.assertNotIn("Incomplete", text)
        self.assertIn("Variants of the sweep: 11 ; stored: 11 ; missing: 0 "
                      ". State: finished", text)


# Two cars for half a second: summary rows only, many variants fast.
SHORT_PAIR = """\
vsweep: 1
name: short pair
step: 0.1
duration: 0.5
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: 30}}
  - id: 2
    asset: car
    start: {position: [0, 40, 0], yaw: 0}
    speed: 5
"""

# Four parameters, each variant its own value of each: four scatters per
# KPI with a value.
FOUR_AXES = """\
vsweep: 1
seed: 5
blocks:
  - random:
      count: 900
      axes:
        - {actor: 1, speed: {uniform: [5, 25]}}
        - {actor: 2, speed: {uniform: [2, 12]}}
        - {actor: 1, param: behaviour.steering_wheel_deg, value: {uniform: [10, 60]}}
        - {actor: 1, param: vehicle_model.steering_ratio, value: {uniform: [12, 18]}}
"""

# 81 x 50 = 4050 grid points: binned along the first axis (docs/cli.md:
# at most 60 cells along an axis), past 4000 variants.
BIG_GRID = """\
vsweep: 1
blocks:
  - grid:
      - {actor: 1, speed: {from: 5, to: 25, step: 0.25}}
      - {actor: 2, speed: {from: 1, to: 13.25, step: 0.25}}
"""

PAGE_MARKS = 20000   # docs/cli.md: marks of all scatters of a page


class ReportSizeTest(TempDirCase):
    def report_of(self, sweep, n):
        scn = self.write("s.yaml", SHORT_PAIR)
        sw = self.write("w.yaml", sweep)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db, "-j", "2",
                         "--record", "summary")
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM variant")[0][0], n)
        page = self.path("r.html")
        rc, _, err = run("report", db, "-o", page)
        self.assertEqual(rc, 0, err)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        return db, page, text

    def test_marks_of_a_page_share_a_budget(self):
        """Found in review: 3000 summary-only variants with 4 parameters
        made a 12.7 MB page (40 scatters of 3000 marks each); the sample
        began only past 4000 variants, whatever the number of scatters.
        Here 900 variants and 4 parameters: the scatters draw at most
        PAGE_MARKS marks in all, each the same variants (a sample), with
        their tooltips, and the page says it is a sample."""
        db, page, text = self.report_of(FOUR_AXES, 900)
        dom = Dom()
        dom.feed(text)
        charts = dom.charts("scatter")
        kpis = [c[1] for c in query(db, "PRAGMA table_info(variant_summary)")
                if c[1] not in ("variant_id", "status", "label", "params")
                and not c[1].endswith("_actor_id")]
        with_value = [k for k in kpis if query(
            db, 'SELECT count("%s") FROM variant_summary' % k)[0][0]]
        self.assertEqual(len(charts), 4 * len(with_value))
        per = [sorted(a["data-v"] for a in marks(c, "circle", "mark"))
               for c in charts]
        self.assertLessEqual(sum(len(p) for p in per), PAGE_MARKS)
        self.assertLessEqual(len(per[0]), PAGE_MARKS // len(charts))
        self.assertLess(len(per[0]), 900)
        self.assertGreater(len(per[0]), 0)
        # every variant has a value of each parameter: the same sample
        # in every chart, each mark with its tooltip
        for c, p in zip(charts, per):
            self.assertEqual(p, per[0], c[0])
            self.assertTrue(all(a.get("data-tip", "").startswith("variant ")
                                for a in marks(c, "circle", "mark")))
        self.assertIn('id="sampled"', text)
        self.assertIn("sample of %d of the 900 variants" % len(per[0]),
                      page_text(page))
        # about 100 bytes a mark: the page stays a few MB
        self.assertLess(os.path.getsize(page), 4e6)

    def test_a_binned_grid_says_what_its_cells_are(self):
        """Found in review: an 80 x 60 grid's note said both "one heat-map
        cell per grid point" and "each cell covers a block of neighbouring
        grid points", and "Scatters show a deterministic sample of about
        4000" on a page with no scatter; nothing said the colour scale's
        ends are cell means, not the KPI table's max and min. Here 81 x 50
        (4050 variants): binned to 60 cells along the first axis, blocks
        of up to 2 x 1 points; no scatter, no word of a sample."""
        db, page, text = self.report_of(BIG_GRID, 81 * 50)
        words = page_text(page)
        self.assertNotIn("one heat-map cell per grid point", words)
        self.assertIn("A full grid of 81 × 50, drawn as 60 × 50 cells", words)
        self.assertIn("each cell covers a block of up to 2 × 1 neighbouring "
                      "grid points", words)
        self.assertIn('id="binned"', text)
        self.assertIn("Cells hold up to 2 variants: the colours and the "
                      "colour scale's ends are cell means", words)
        self.assertNotIn("sample", words)
        self.assertNotIn('id="sampled"', text)
        self.assertNotIn("Red rings", words)
        dom = Dom()
        dom.feed(text)
        self.assertEqual(dom.charts("scatter"), [])
        for h in dom.charts("heatmap"):
            self.assertEqual(len(marks(h, "rect", "cell")), 60 * 50)


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
