"""Benchmarks (pytest-benchmark), kept out of the default test run.

Run: ``python -m pytest benches --benchmark-only --benchmark-json=bench.json`` then
``python benches/report.py bench.json`` for the ratios (Rust vs oracle, panda-core vs OpenSpiel).
Figures are ratios within one run: the machines are shared and noisy.
"""
