#!/bin/sh
# Prints JSON null, which is not an observation.
echo null
