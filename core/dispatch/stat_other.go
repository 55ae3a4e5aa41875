//go:build !unix

package dispatch

import "os"

// fileID is empty where the platform has no inode: size and time decide alone.
func fileID(os.FileInfo) string { return "" }
