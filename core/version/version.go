// Package version is hookexec's version, for Go programs that embed the core and for the
// hookexec CLI's --version.
//
// The top-level VERSION file holds the version; Version here, the HOOKEXEC_VERSION_*
// macros of include/hookexec.h, the Python package, the pkg-config file and the shared
// library's SONAME all come from it (the Makefile reads it; this package's test checks
// that the copies here and in the header agree with it).
package version

import (
	"strconv"
	"strings"
)

// Version is the release, "MAJOR.MINOR.PATCH". Major changes break the C ABI or the Go API.
const Version = "0.1.0"

// Major, Minor and Patch are Version's parts.
var Major, Minor, Patch = parts()

// Number is Major*1000000 + Minor*1000 + Patch, as hookexec_version_number() returns it.
var Number = Major*1000000 + Minor*1000 + Patch

func parts() (major, minor, patch int) {
	f := strings.SplitN(Version, ".", 3)
	n := func(i int) int {
		v, _ := strconv.Atoi(f[i])
		return v
	}
	return n(0), n(1), n(2)
}
