"""A toy paper from outside the pufferfish repository: randomized response on one binary attribute.

The released attribute of a dataset (``romantic`` yes/no, say) goes through randomized
response RR(eps) (:class:`pufferfish.mechanisms.randomized_response.RandomizedResponse`); the
adversary's priors are the attribute's laws among the records of two values of a protected
column. Per eps of the grid, the exact pufferfish loss of the released bit (both directions),
audited against eps in the shared audit schema (:mod:`pufferfish.audit.verdict`), one figure,
and the subcommand ``pufferfish toy``. Declared in :mod:`toy_paper.paper`.
"""
