"""The spec text (`spec/<area>.md`) read for its rules (`rules`) and its Decisions tables
(`decisions`), each problem a `finding` with its file and line."""
