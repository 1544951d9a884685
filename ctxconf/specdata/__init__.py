"""The spec folder as data: where it is, its schemas, its files' problems, and the one reader."""
