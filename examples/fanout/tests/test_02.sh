#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((102 * 2)) -eq 204 ]
