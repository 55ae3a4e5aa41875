package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseEnvFile(t *testing.T) {
	got, warnings := parseEnvFile([]byte(`export NODE_ENV=production
export DEBUG_LOG=true
export PATH="$PATH:./node_modules/.bin"
declare -x FROM_EXPORT_P="a b"
X=1
export X
export Q='it''s' R=\$lit
# a comment
export SUB="$(date)"
nvm use 20
`), []string{"PATH=/usr/bin", "HOME=/h"})
	require.Equal(t, map[string]string{
		"NODE_ENV": "production", "DEBUG_LOG": "true", "PATH": "/usr/bin:./node_modules/.bin",
		"FROM_EXPORT_P": "a b", "X": "1", "Q": "its", "R": "$lit",
	}, got)
	require.Len(t, warnings, 2)
	require.Contains(t, warnings[0], "line 9")
	require.Contains(t, warnings[1], "line 10")
	_, warnings = parseEnvFile([]byte("export A='unterminated\n"), nil)
	require.Contains(t, warnings[0], "not valid shell")
}
