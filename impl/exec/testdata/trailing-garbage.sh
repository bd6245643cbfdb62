#!/bin/sh
# Prints an observation followed by garbage.
echo '{"effective": []} done'
