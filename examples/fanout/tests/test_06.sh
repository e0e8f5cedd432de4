#!/bin/sh
# A tiny test: arithmetic that must hold.
[ $((106 * 2)) -eq 212 ]
