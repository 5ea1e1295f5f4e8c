"""The `bestiary` command line."""
