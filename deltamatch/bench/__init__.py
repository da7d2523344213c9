"""Benchmark tooling: the deterministic RMAT generator, workloads and the `deltamatch bench` suite."""
