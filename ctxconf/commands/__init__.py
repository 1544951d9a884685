"""One module per `ctxconf` subcommand."""
