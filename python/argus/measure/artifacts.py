"""The artifact store moved to argus.execution.artifacts (shared with the
agent loop); this module keeps ``argus.measure.artifacts`` imports working."""

from ..execution.artifacts import ArtifactStore, canonical, task_key  # noqa: F401
