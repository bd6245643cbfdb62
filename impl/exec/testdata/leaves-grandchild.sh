#!/bin/sh
# Prints an observation and exits, leaving a grandchild that holds stdout
# open.
[ -n "$PIDFILE" ] && echo $$ >"$PIDFILE"
sleep 20 &
echo '{"effective": []}'
