#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((105 * 2)) -eq 210 ]
