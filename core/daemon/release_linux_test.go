package daemon

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReadOnlyMappings: of the executable's mappings only those neither writable nor
// holding copied pages are released; other files' mappings never.
func TestReadOnlyMappings(t *testing.T) {
	smaps := `00400000-00a00000 r-xp 00000000 fd:01 123 /usr/bin/hookexec
Size:               6144 kB
Anonymous:             0 kB
00a00000-01000000 r--p 00600000 fd:01 123 /usr/bin/hookexec
Anonymous:             0 kB
01000000-01100000 rw-p 00c00000 fd:01 123 /usr/bin/hookexec
Anonymous:           512 kB
01100000-01200000 r--p 00d00000 fd:01 123 /usr/bin/hookexec
Anonymous:             8 kB
7f0000000000-7f0000100000 r-xp 00000000 fd:01 456 /usr/lib/libc.so.6
Anonymous:             0 kB
7f0000200000-7f0000300000 rw-p 00000000 00:00 0
Anonymous:          1024 kB
7f0000400000-7f0000500000 r-xp 00000000 fd:01 124 /usr/bin/hookexec two
Anonymous:             0 kB
`
	got := readOnlyMappings([]byte(smaps), "/usr/bin/hookexec")
	want := [][2]uintptr{{0x400000, 0xa00000}, {0xa00000, 0x1000000}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %x, want %x", got, want)
	}
	if got := readOnlyMappings([]byte(smaps), "/usr/bin/hookexec two"); len(got) != 1 || got[0] != [2]uintptr{0x7f0000400000, 0x7f0000500000} {
		t.Fatalf("a path with a space: %x", got)
	}
}

// TestReleaseBinaryPagesLowersRSS: after start-up, the process's resident pages of its own
// executable drop, and the process goes on running code from them.
func TestReleaseBinaryPagesLowersRSS(t *testing.T) {
	before := rssFileKiB(t)
	releaseBinaryPages()
	after := rssFileKiB(t)
	if after >= before {
		t.Fatalf("RssFile %d kB before, %d kB after: nothing released", before, after)
	}
	t.Logf("RssFile %d kB → %d kB", before, after)
}

func rssFileKiB(t *testing.T) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "RssFile:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}
