"""The history area's reference, its cases, its checks and its fuzzing."""
