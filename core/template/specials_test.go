package template

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The shells are the oracle for their own variables: every variable bash, zsh (also as
// sh), mksh, dash and busybox sh report in an empty environment is special, so no value
// is assigned to one (zsh's SHLVL=<<x>> evaluated the value as arithmetic, found by
// TestShellDiff).
func TestSpecialsCoverShells(t *testing.T) {
	lists := []struct {
		shell []string
		list  string
	}{
		{[]string{"bash", "--norc", "--noprofile", "-c"}, "compgen -v"},
		{[]string{"zsh", "-f", "-c"}, "print -rl -- ${(k)parameters}"},
		{[]string{"zsh", "--emulate", "sh", "-c"}, "set"},
		{[]string{"mksh", "-c"}, "typeset | while read -r a b c; do echo \"${c:-$b}\"; done; set"},
		{[]string{"dash", "-c"}, "set"},
		{[]string{"busybox", "sh", "-c"}, "set"},
	}
	name := regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(=|$)`)
	for _, l := range lists {
		t.Run(strings.Join(l.shell[:len(l.shell)-1], " "), func(t *testing.T) {
			path, err := exec.LookPath(l.shell[0])
			if err != nil {
				if os.Getenv("HOOKEXEC_REQUIRE_SHELLS") == "1" {
					t.Fatalf("%s is not installed and HOOKEXEC_REQUIRE_SHELLS=1", l.shell[0])
				}
				t.Skipf("%s is not installed", l.shell[0])
			}
			cmd := exec.Command(path, append(l.shell[1:], l.list)...)
			cmd.Env = []string{}
			out, err := cmd.Output()
			require.NoError(t, err)
			n := 0
			for _, line := range strings.Split(string(out), "\n") {
				m := name.FindStringSubmatch(strings.TrimSpace(line))
				if m == nil {
					continue
				}
				n++
				require.True(t, special(m[1]), "%s knows the variable %s, which the check would let a value be assigned to", l.shell[0], m[1])
			}
			require.Greater(t, n, 5, "the shell listed its variables")
		})
	}
}
