//go:build !linux && !darwin

package main

import "os"

// Elsewhere the command prints plain text: no colour, no shortening, no progress line.
func isatty(*os.File) bool { return false }

func termWidth(*os.File) int { return 0 }
