"""The exact GELU in numpy without scipy (math.erf per element)."""
import math

import numpy as np

_erf = np.vectorize(math.erf)


def gelu(x):
    x = np.asarray(x, dtype=np.float64)
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
