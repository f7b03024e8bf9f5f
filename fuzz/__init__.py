"""Fuzzing utvm-build: the reader and the whole compile step, plus the generated C (see docs/fuzzing.md)."""
