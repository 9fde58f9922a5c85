"""The fault-injection check (``make test-faults``): does the fast tier notice a 1e-6 error in any exact computation?

:mod:`.catalog` lists the computations and the regions of their inputs, :mod:`.inject` wraps a
computation where it is looked up, :mod:`.plugin` is the pytest plugin, :mod:`.run` the driver.
"""
