#!/bin/sh
# The RPM scriptlet after install and removal: refresh the dynamic linker's cache.
/sbin/ldconfig
