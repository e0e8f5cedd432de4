#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((101 * 2)) -eq 202 ]
