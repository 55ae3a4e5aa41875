//go:build !unix && !windows

package audit

import (
	"errors"
	"os"
)

var errNoLock = errors.New("audit: no file locking on this platform; the audit log cannot be shared safely")

func lock(*os.File) error   { return errNoLock }
func unlock(*os.File) error { return errNoLock }
