"""The reproducible pipeline around the papers' experiments, the top layer, derived from the
declared papers (:mod:`pufferfish.papers`): config.yaml validated and typed (:mod:`.config`:
the schema with each paper's section, :class:`~pufferfish.pipeline.config.Settings` holding
each running paper's settings, the dispatch to each paper's own checks), what the cached data
can tell of it (:mod:`.data_checks`), data download and checksums (:mod:`.fetch`),
reproduction table, audit summary and provenance (:mod:`.report`), the report's front page
(:mod:`.front_page`), the Snakemake jobs' glue (:mod:`.jobs`) and code digests
(:mod:`.sources`). Nothing below this package imports it."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["Settings", "load_settings", "validate_config", "load_schema", "check_duplicate_keys"],
                    "pufferfish.pipeline.config"),
    **dict.fromkeys(["check_data"], "pufferfish.pipeline.data_checks"),
    **dict.fromkeys(["download"], "pufferfish.pipeline.fetch"),
    **dict.fromkeys(["run"], "pufferfish.pipeline.jobs"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("config", "data_checks", "fetch", "report", "front_page", "jobs",
                                                  "sources"))
