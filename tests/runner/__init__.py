"""The conformance runner: transports, the run, its results, its report."""
