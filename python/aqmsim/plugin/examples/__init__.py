"""Example Python queue disciplines (``aqmsim.plugin.examples.red:Red`` …)."""
