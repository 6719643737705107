"""Handler factories the Slurm tests name in a HandlerRef (job array
elements import this module: the tests put test/python on the jobs'
PYTHONPATH)."""

import os

from argus.measure import make_handlers


def measure_handlers(argus_run: str) -> dict:
    """The real measurement handlers (argus-run as a CommandHandler with
    ``argus_run`` as the tool) with argus-opt replaced: the transforms write
    a fake PTX, so no MLIR tool is needed."""
    h = make_handlers({"argus-run": argus_run})

    def lower(ctx):
        with open(os.path.join(ctx.workdir, "module.ptx"), "w") as f:
            f.write("// fake-ok\n")
        return {"module": "module.ptx"}
    h.update({"lower": lower, "instrument": lower})
    return h
