"""The reproducible pipeline around the papers' experiments, the top layer: config.yaml
validated and typed (:mod:`.config`: the schema, :class:`~pufferfish.pipeline.config.Settings`
built of each experiment's settings classes, the cross-references and data checks), data
download and checksums (:mod:`.fetch`), reproduction table, audit summary and provenance
(:mod:`.report`), the Snakemake script glue (:mod:`.jobs`) and code digests (:mod:`.sources`).
Nothing below this package imports it."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["Settings", "load_settings", "validate_config", "load_schema", "check_data",
                     "check_duplicate_keys"], "pufferfish.pipeline.config"),
    **dict.fromkeys(["download"], "pufferfish.pipeline.fetch"),
    **dict.fromkeys(["run"], "pufferfish.pipeline.jobs"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("config", "fetch", "report", "jobs", "sources"))
