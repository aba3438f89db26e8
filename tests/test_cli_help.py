"""`--help` of every command-line entry point says what to type (examples, exit status) and, for the Hydra ones,
only the keys that command takes; `python -m evalkit ... -m --cfg job` answers in one line (issue 30 point 8). One
subprocess runs every entry point in turn (runpy, as ``python -m`` does): a process start costs seconds, so one
for all of them."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

from tests.conftest import REPO

COMMANDS = ["evalkit", "evalkit.analyze", "evalkit.arena", "evalkit.serve", "evalkit.gate", "evalkit.view"]
if importlib.util.find_spec("evalkit.plan") is not None:  # issue 30 point 2 adds it (another branch)
    COMMANDS.append("evalkit.plan")

DRIVER = """
import contextlib, io, json, runpy, sys
out = {}
def run(module, *args):
    sys.argv = [module, *args]
    stdout, stderr, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            code = exc.code or 0
    return {"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "code": code}
for module in sys.argv[1:]:
    out[module] = run(module, "--help")
out["cfg_multirun"] = run("evalkit", "+perturb=noise_cafe", "-m", "--cfg", "job")
print("\\n@@JSON@@" + json.dumps(out))
"""


def test_every_entry_point_explains_itself_and_two_modes_answer_in_one_line() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HYDRA_FULL_ERROR": "0"}
    proc = subprocess.run([sys.executable, "-c", DRIVER, *COMMANDS], capture_output=True, text=True, env=env,
                          timeout=300, cwd=REPO)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.split("@@JSON@@")[-1])
    for module in COMMANDS:
        text = found[module]["stdout"]
        assert found[module]["code"] == 0 and "examples:" in text and f"python -m {module} " in text, (module, text)
        assert "exit status" in text, module
    runner, arena = found["evalkit"]["stdout"], found["evalkit.arena"]["stdout"]
    assert "perturb: burst_noise, clean, codec_g711" in runner and "+perturb=noise_cafe" in runner
    # the arena lists its own keys, none of the runner's config groups it does not take
    assert "judge:" in arena and "sweep: latest" in arena
    assert "perturb:" not in arena and "voice:" not in arena and "Configuration groups" not in arena
    assert "perturb:" not in found["evalkit.analyze"]["stdout"]
    bad = found["cfg_multirun"]
    assert bad["code"] == 2 and "Traceback" not in bad["stderr"], bad
    (line,) = bad["stderr"].strip().splitlines()
    assert "cannot be combined with -m" in line and "python -m evalkit +perturb=noise_cafe --cfg job" in line
