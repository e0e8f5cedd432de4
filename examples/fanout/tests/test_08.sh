#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((108 * 2)) -eq 216 ]
