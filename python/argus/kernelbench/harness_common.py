"""Constants shared by the harness and the proof checks."""

ATOL = RTOL = 1e-2  # KernelBench's default tolerances
# The verifier's checks that each output element is written exactly once.
WRITE_ONCE_KINDS = ("output-once", "output-coverage")
