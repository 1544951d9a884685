"""Reading and writing a user's files: bounded reads (`limits`, `document`), JSON positions
(`jsonpos`), YAML a person wrote (`useryaml`), and the one writer (`atomic`)."""
