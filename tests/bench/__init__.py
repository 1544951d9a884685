"""The benchmarks run to the end on small inputs (their figures are bench/README.md's)."""
