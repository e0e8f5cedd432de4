#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((103 * 2)) -eq 206 ]
