# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Reading .vtp files with Debian's patched libexpat (docs/libexpat.md).

ParaView 5.11 writes appended-data XML by default, and Debian 12's libexpat (2.5.0-1+deb12u2 and
later) makes ParaView fail to read it back. The project protects its users twice, and both are
checked here, each in a fresh pvpython:
  1. our scripts write inline binary (DataMode 'Binary'): such a file reads back WITHOUT any help;
  2. libEMSTExpatFix.so (LD_PRELOAD, or the emst-pvpython wrapper) makes the default appended
     files read back; this part fails if the work-around stops working.
Also reported: whether this machine's libexpat has the problem at all (the appended file read
without the work-around). And the wrapper must auto-load the plugin (PV_PLUGIN_PATH)."""
import os
import subprocess

import emst_testing as t

args = t.arguments()
simple = t.load(args.plugin)
os.makedirs(args.work_dir, exist_ok=True)
appended = os.path.join(args.work_dir, "tree_appended.vtp")
binary = os.path.join(args.work_dir, "tree_binary.vtp")

cloud = simple.XMLPolyDataReader(FileName=[args.sample])
tree = simple.EuclideanMinimumSpanningTree(Input=cloud)
tree.UpdatePipeline()
n = tree.GetDataInformation().GetNumberOfPoints()
total = t.field(tree.GetClientSideObject().GetOutputDataObject(0), "TotalLength")
simple.SaveData(appended, proxy=tree)  # ParaView's default: appended raw data
simple.SaveData(binary, proxy=tree, DataMode="Binary")
with open(appended, "rb") as f:
    assert b'format="appended"' in f.read(4096), "the default writer no longer writes appended data"

READ = """
import sys
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
r = vtkXMLPolyDataReader()
r.SetFileName(sys.argv[1])
r.Update()
o = r.GetOutput()
t = o.GetFieldData().GetArray('TotalLength')
print('read points=%d lines=%d total=%.17g' % (o.GetNumberOfPoints(), o.GetNumberOfLines(), t.GetValue(0) if t else -1))
"""
reader_script = os.path.join(args.work_dir, "read_vtp.py")
with open(reader_script, "w") as f:
    f.write(READ)


def read(path, program, preload=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = preload
    child = subprocess.run([program, reader_script, path], capture_output=True, text=True, env=env, timeout=120)
    expected = "read points=%d lines=%d total=%.17g" % (n, n - 1, total)
    ok = child.returncode == 0 and expected in child.stdout and "ERR|" not in child.stderr
    return ok, (child.stdout + child.stderr).strip()


ok, log = read(binary, args.pvpython)
assert ok, "inline-binary .vtp not read back without the work-around:\n" + log
t.passed("DataMode Binary: read back by a plain pvpython (%d points, %d lines)" % (n, n - 1))

affected, log = read(appended, args.pvpython)
affected = not affected
errors = [line for line in log.splitlines() if "ERR|" in line or "rror" in line]
print("NOTE: this machine's libexpat %s ParaView's appended-data reading%s"
      % ("breaks" if affected else "does not break", (": " + errors[0].strip()) if affected and errors else ""))

ok, log = read(appended, args.pvpython, preload=args.expat_fix)
assert ok, "appended .vtp not read back with LD_PRELOAD=%s:\n%s" % (args.expat_fix, log)
t.passed("appended .vtp read back with LD_PRELOAD=libEMSTExpatFix.so")

ok, log = read(appended, args.wrapper)
assert ok, "appended .vtp not read back by %s:\n%s" % (args.wrapper, log)
t.passed("appended .vtp read back by the emst-pvpython wrapper")

autoload = os.path.join(args.work_dir, "autoload.py")
with open(autoload, "w") as f:
    f.write("import paraview.simple as s\n"
            "t = s.EuclideanMinimumSpanningTree(Input=s.PointSource(NumberOfPoints=30))\n"
            "t.UpdatePipeline()\n"
            "print('autoloaded lines=%d' % t.GetDataInformation().GetNumberOfCells())\n")
child = subprocess.run([args.wrapper, autoload], capture_output=True, text=True, timeout=120)
assert child.returncode == 0 and "autoloaded lines=29" in child.stdout, child.stdout + child.stderr
t.passed("the emst-pvpython wrapper loads the plugin by itself")
