#!/bin/sh
# Waits for a grandchild that holds stdout open: only a kill of the whole
# process group ends it.
[ -n "$PIDFILE" ] && echo $$ >"$PIDFILE"
sleep 20 &
wait
