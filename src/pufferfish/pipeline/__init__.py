"""The reproducible pipeline around the methods: config validation (:mod:`.config`), data
download and checksums (:mod:`.fetch`), conditional priors from data (:mod:`.priors`), atomic
I/O (:mod:`.io`), plotting conventions (:mod:`.plotting`), reproduction table, audit summary
and provenance (:mod:`.report`), the Snakemake script glue (:mod:`.cli`) and code digests
(:mod:`.sources`)."""
