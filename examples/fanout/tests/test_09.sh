#!/bin/sh
# This test fails on purpose, so the merged report shows a failure.
[ "warden" = "warren" ]
