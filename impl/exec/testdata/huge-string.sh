#!/bin/sh
# Prints one JSON observation holding a string of 4 MiB.
[ -n "$PIDFILE" ] && echo $$ >"$PIDFILE"
printf '{"effective": [{"path": ["'
head -c 4194304 /dev/zero | tr '\0' a
printf '"], "spec": {}}]}\n'
