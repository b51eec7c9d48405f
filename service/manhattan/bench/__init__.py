"""Benchmarks behind ``manhattan bench`` (figures in the README)."""
