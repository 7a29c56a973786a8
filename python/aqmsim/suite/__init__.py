"""The characterisation suites (issue 16)."""
