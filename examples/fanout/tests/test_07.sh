#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((107 * 2)) -eq 214 ]
