#!/bin/sh
# Prints two observations: the protocol wants one.
echo '{"effective": []}'
echo '{"effective": []}'
