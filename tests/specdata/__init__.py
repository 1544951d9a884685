"""The spec folder as data: its reader, its schemas, which folder a command uses."""
