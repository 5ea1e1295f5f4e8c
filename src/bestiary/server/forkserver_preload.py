"""Imported by the search pool's forkserver as it starts (and by nothing else): the forkserver ends with the
server that started it, however the server ends, and its searching children end with it (server/thinking.py).
Without this a killed server's forkserver and searches ran on (about 60 MB) until someone noticed."""

import os

from bestiary.server.workers import die_with_parent

FORKSERVER = os.getpid()  # in a child forked from the forkserver: its parent, unless that died meanwhile
die_with_parent()
