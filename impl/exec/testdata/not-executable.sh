#!/bin/sh
echo '{}'
