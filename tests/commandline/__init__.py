"""The command line and the pytest plugin, as users meet them."""
