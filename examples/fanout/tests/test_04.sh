#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((104 * 2)) -eq 208 ]
