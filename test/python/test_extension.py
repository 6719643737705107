"""The _argus extension is importable (every other test file needs it and is
not collected without it)."""

import pytest


def test_extension_importable():
    try:
        import _argus
    except ImportError as e:
        pytest.skip(f"the _argus extension is not built or not on PYTHONPATH: {e}")
    import argus
    assert argus.features() == dict(_argus.features)
