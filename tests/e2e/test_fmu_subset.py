"""The part of FMI 2.0 / 3.0 co-simulation vsweep drives (docs/plugins.md,
"FMUs at run time"), end to end with the probe FMU of tests/fmu/probe.c
packed with a modelDescription.xml that declares what is tried:

- what vsweep does not drive is refused when the FMU is loaded, by
  `check`, `run` and `plugins --fmu` alike (exit status 2), naming the
  .fmu, the line of modelDescription.xml and what is not supported:
  clocks (a <Clock>, a variable with clocks="..."), needsExecutionTool,
  a Binary, an array or a non-Real variable where vsweep exchanges a
  scalar Real/Float64;
- an FMU that cannot handle a variable communication step size and has
  a step of its own (fixedInternalStepSize, DefaultExperiment stepSize)
  runs when the scenario's step is a whole multiple of it, and is refused
  when it is not;
- canBeInstantiatedOnlyOncePerProcess is an xs:boolean: "1" is true
  (FMI 2.0 and 3.0), and a value that is no Boolean is refused;
- hasEventMode and providesEvaluateDiscreteStates ask nothing of vsweep
  (it instantiates with eventModeUsed = false): such an FMU runs, and so
  does one with a Binary parameter vsweep does not use.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import FmuTempDirCase, query  # noqa: E402
from test_fmu_calls import pack, scenario_text  # noqa: E402


def sub(old, new):
    """An edit replacing the first old (which must be there) by new."""
    def edit(text):
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


def both(*edits):
    def edit(text):
        for e in edits:
            text = e(text)
        return text
    return edit


def line_of(fmu_text, what):
    return fmu_text[:fmu_text.index(what)].count("\n") + 1


CS3 = '<CoSimulation modelIdentifier="probe3"'
CS2 = '<CoSimulation modelIdentifier="probe2"'
VARS = "<ModelVariables>\n"


class FmuSubsetTest(FmuTempDirCase):
    def fmu(self, fmi, edit, name="f.fmu", **kw):
        """The probe FMU with its description edited, and that text."""
        texts = []

        def keep(text):
            text = edit(text)
            texts.append(text)
            return text
        path = pack(self.path(name), fmi, edit=keep, **kw)
        return path, texts[0]

    def refused(self, fmu, says, listing=True):
        """check and run refuse the scenario on fmu, plugins --fmu the
        FMU (unless listing is False), each with exactly says."""
        s = self.write("s.yaml", scenario_text(fmu))
        if os.path.exists(self.path("r.db")):
            os.remove(self.path("r.db"))
        for cmd in (("check", s), ("run", s, "-o", self.path("r.db"))):
            rc, out, err = self.vsweep(*cmd)
            self.assertEqual(rc, 2, out + err)
            self.assertIn("s.yaml:", err)
            self.assertIn("actor 1: vehicle_model: %s: %s" % (fmu, says),
                          err)
            self.assertEqual(err.count("\n"), 1, err)
        self.assertFalse(os.path.exists(self.path("r.db")))
        if listing:
            rc, out, err = self.vsweep("plugins", "--fmu", fmu)
            self.assertEqual(rc, 2, out + err)
            self.assertEqual(err, "vsweep: %s: %s\n" % (fmu, says))

    def runs(self, fmu, step=0.1, variables=None):
        """The scenario on fmu (its variables: mapping, if any) runs to
        the end, moving y by 10 m/s."""
        text = scenario_text(fmu).replace("step: 0.1", "step: %r" % step)
        if variables:
            text = text.replace("params: {}}", "params: {}, variables: "
                                "%s}" % variables)
            self.assertIn("variables: ", text)
        s = self.write("s.yaml", text)
        db = self.path("r.db")
        if os.path.exists(db):
            os.remove(db)
        rc, _, err = self.vsweep("run", s, "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT status FROM variant_info"),
                         [("done",)])
        for k, y in query(db, "SELECT step, y FROM actor_state"):
            self.assertAlmostEqual(y, 10.0 * step * k, delta=1e-9)

    def test_speed_input_mapped(self):
        """'speed' names both the commanded input and an optional output:
        a mapping of it names the one whose causality its variable has,
        so an FMU whose speed input is v_cmd runs (docs/scenario.md,
        variables:), and the message of a wrong mapping names the input."""
        for fmi in (2, 3):
            with self.subTest(fmi=fmi):
                fmu, _ = self.fmu(fmi, sub('name="speed" valueReference="0"',
                                           'name="v_cmd" valueReference="0"'),
                                  name="v%d.fmu" % fmi)
                self.runs(fmu, variables="{speed: v_cmd}")
                s = self.write("w.yaml", scenario_text(fmu).replace(
                    "params: {}}", "params: {}, variables: {speed: mode}}"))
                rc, _, err = self.vsweep("check", s)
                self.assertEqual(rc, 2, err)
                self.assertIn("variable 'mode' is a parameter, but vsweep "
                              "exchanges speed as an input", err)

    def test_clocks_refused(self):
        clock = ('<Clock name="tick" valueReference="20" causality="input" '
                 'intervalVariability="constant" intervalDecimal="0.1"/>\n')
        fmu, text = self.fmu(3, sub(VARS, VARS + clock))
        self.refused(fmu, "modelDescription.xml:%d: variable 'tick' is a "
                     "Clock: FMI 3.0 drives an FMU with clocks in event "
                     "mode only, and vsweep steps FMUs without it "
                     "(eventModeUsed = false); clocks are not supported"
                     % line_of(text, '<Clock name="tick"'))
        # a clocked variable ahead of its clock is the one named
        clocked = ('<Float64 name="u" valueReference="21" '
                   'causality="input" clocks="20" start="0"/>\n')
        fmu, text = self.fmu(3, sub(VARS, VARS + clocked + clock),
                             name="g.fmu")
        self.refused(fmu, "modelDescription.xml:%d: variable 'u' is "
                     "clocked (it has clocks): FMI 3.0 drives an FMU with "
                     "clocks in event mode only, and vsweep steps FMUs "
                     "without it (eventModeUsed = false); clocks are not "
                     "supported" % line_of(text, '<Float64 name="u"'))

    def test_needs_execution_tool_refused(self):
        for fmi, cs in ((2, CS2), (3, CS3)):
            with self.subTest(fmi=fmi):
                fmu, text = self.fmu(fmi, sub(
                    cs, cs + ' needsExecutionTool="true"'),
                    name="t%d.fmu" % fmi)
                self.refused(fmu, "modelDescription.xml:%d: CoSimulation "
                             "has needsExecutionTool=\"true\": the FMU "
                             "runs only with an external tool, which "
                             "vsweep cannot contain, stop or make "
                             "reproducible across many instances in "
                             "parallel processes; not supported"
                             % line_of(text, cs))

    def test_port_types_refused(self):
        cases = [
            (3, sub('<Float64 name="x"', '<Binary name="x"'), "x",
             "variable 'x' is of type Binary, but vsweep exchanges x as a "
             "scalar Float64 or Float32; not supported"),
            (3, sub('start="0.0" unit="m/s"/>',
                    'start="0.0" unit="m/s"><Dimension start="2"/>'
                    '</Float64>'), "speed",
             "variable 'speed' is an array (Float64 with <Dimension>), "
             "but vsweep exchanges speed as a scalar Float64 or Float32; "
             "not supported"),
            (2, sub('<Real unit="rad"/></ScalarVariable>',
                    '<Integer/></ScalarVariable>'), "yaw",
             "variable 'yaw' is of type Integer, but vsweep exchanges yaw "
             "as a scalar Real; not supported"),
            # the right name, another causality: said with its line, not
            # as "has no Real output 'x'"
            (3, sub('name="x" valueReference="2" causality="output"',
                    'name="x" valueReference="2" causality="local"'), "x",
             "variable 'x' is neither an input, an output nor a "
             "parameter, but vsweep exchanges x as an output"),
            (2, sub('name="yaw" valueReference="4" causality="output"',
                    'name="yaw" valueReference="4" causality="input"'),
             "yaw",
             "variable 'yaw' is an input, but vsweep exchanges yaw as an "
             "output"),
        ]
        for i, (fmi, edit, name, says) in enumerate(cases):
            with self.subTest(name):
                fmu, text = self.fmu(fmi, edit, name="p%d.fmu" % i)
                self.refused(fmu, "modelDescription.xml:%d: %s" % (
                    line_of(text, 'name="%s"' % name), says))

    def test_fixed_step(self):
        fixed = CS3 + ' fixedInternalStepSize="0.03"'
        fmu, text = self.fmu(3, sub(CS3, fixed))
        # 0.1 s is 3.33 steps of 0.03 s; the listing has no step to judge
        self.refused(fmu, "modelDescription.xml:%d: the FMU cannot handle "
                     "a variable communication step size (canHandle"
                     "VariableCommunicationStepSize is false) and steps by "
                     "fixedInternalStepSize = 0.03 s, but the scenario's "
                     "step, 0.1 s, is not a whole multiple of it; not "
                     "supported (give the scenario a step of 0.03 s or a "
                     "multiple of it)" % line_of(text, CS3), listing=False)
        self.runs(fmu, step=0.09)   # 3 of its steps
        self.runs(fmu, step=0.03)
        # one that can handle a variable step takes any
        fmu, _ = self.fmu(3, sub(CS3, fixed + ' canHandleVariable'
                                 'CommunicationStepSize="true"'),
                          name="v.fmu")
        self.runs(fmu)
        # a DefaultExperiment's stepSize is a suggestion to the importer
        # (FMI 2.0 and 3.0), not a step the FMU is bound to: any step
        de = '<DefaultExperiment startTime="0" stepSize="0.3"/>\n'
        for fmi in (2, 3):
            fmu, text = self.fmu(fmi, sub(VARS, de + VARS),
                                 name="d%d.fmu" % fmi)
            self.runs(fmu)
            self.runs(fmu, step=0.3)

    def test_once_per_process_is_a_boolean(self):
        for fmi in (2, 3):
            with self.subTest(fmi=fmi):
                fmu, _ = self.fmu(fmi, sub('OncePerProcess="true"',
                                           'OncePerProcess="1"'),
                                  name="o%d.fmu" % fmi, once=True)
                s = self.write("two.yaml", scenario_text(fmu, actors=2))
                rc, out, err = self.vsweep("check", s)
                self.assertEqual(rc, 2, out + err)
                self.assertIn("actor 2: vehicle_model: %s may be "
                              "instantiated only once per process" % fmu,
                              err)
                rc, out, err = self.vsweep("plugins", "--fmu", fmu)
                self.assertEqual(rc, 0, err)
                self.assertIn(", one instance per process\n", out)
        cs = CS2 + ' canBeInstantiatedOnlyOncePerProcess="true"'
        fmu, text = self.fmu(2, sub(cs, CS2 + ' canBeInstantiatedOnly'
                                    'OncePerProcess="yes"'),
                             name="y.fmu", once=True)
        self.refused(fmu, "modelDescription.xml:%d: CoSimulation has "
                     "canBeInstantiatedOnlyOncePerProcess=\"yes\", which is "
                     "not a Boolean (true, false, 1 or 0)"
                     % line_of(text, CS2))

    def test_event_mode_and_binary_parameter_run(self):
        blob = ('<Binary name="blob" valueReference="22" '
                'causality="parameter" variability="tunable" '
                'start="0a1b"/>\n')
        fmu, _ = self.fmu(3, both(
            sub(CS3, CS3 + ' hasEventMode="true" '
                'providesEvaluateDiscreteStates="true"'),
            sub(VARS, VARS + blob)))
        self.runs(fmu)
        rc, out, err = self.vsweep("plugins", "--fmu", fmu)
        self.assertEqual(rc, 0, err)
        self.assertIn("not used (not Real)", out)


if __name__ == "__main__":
    unittest.main()
