package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Rotation: when the current file would grow past Options.MaxBytes it is renamed to
// PATH.N, N one more than the highest number there (PATH.1 is the oldest), and a new PATH
// is started whose first entry links to the last entry of PATH.N. Files lists them in
// chain order.

// Files returns the files of the log at path in chain order: the rotated files PATH.1,
// PATH.2, ... by number, then PATH itself if it exists.
func Files(path string) ([]string, error) {
	nums, err := rotated(path)
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(nums)+1)
	for _, n := range nums {
		files = append(files, path+"."+strconv.Itoa(n))
	}
	if _, err := os.Stat(path); err == nil {
		files = append(files, path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return files, nil
}

// rotated returns the numbers N of the files PATH.N, ascending.
func rotated(path string) ([]int, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nums []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok || rest == "" || strings.TrimLeft(rest, "0123456789") != "" || rest[0] == '0' {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// head is where a chain stands: its last entry's seq and hash.
type head struct {
	seq  uint64
	hash string
}

var genesis = head{hash: Genesis}

// tail reads the last complete line of the first size bytes of r and the number of bytes
// after it that do not end in a newline (a torn last line). line is nil when no complete
// line exists.
func tail(r io.ReaderAt, size int64) (line []byte, torn int64, err error) {
	const chunk = 64 << 10
	var buf []byte // the bytes from off to size
	off := size
	endRel := -1 // distance from the end of buf to the newline ending the last complete line
	for off > 0 {
		n := min(int64(chunk), off)
		off -= n
		b := make([]byte, n, int64(len(buf))+n)
		if _, err := r.ReadAt(b, off); err != nil {
			return nil, 0, err
		}
		buf = append(b, buf...)
		if endRel < 0 {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				continue
			}
			endRel = len(buf) - i
			torn = int64(endRel - 1)
		}
		end := len(buf) - endRel
		if start := bytes.LastIndexByte(buf[:end], '\n'); start >= 0 {
			return buf[start+1 : end], torn, nil
		}
	}
	if endRel < 0 {
		return nil, int64(len(buf)), nil
	}
	return buf[:len(buf)-endRel], torn, nil
}

// headOf reads where the chain stands from a complete line.
func headOf(line []byte) (head, error) {
	var e struct {
		Seq  uint64 `json:"seq"`
		Hash string `json:"hash"`
	}
	if _, claimed, err := split(line); err != nil {
		return head{}, fmt.Errorf("the last entry is not one of an audit log: %v", err)
	} else if err := json.Unmarshal(line, &e); err != nil || e.Hash != claimed || e.Seq == 0 {
		return head{}, errors.New("the last entry is not one of an audit log")
	}
	return head{seq: e.Seq, hash: e.Hash}, nil
}

// lastRotated is where the chain stood at the end of the newest rotated file; genesis when
// there is none.
func lastRotated(path string) (head, error) {
	nums, err := rotated(path)
	if err != nil || len(nums) == 0 {
		return genesis, err
	}
	name := path + "." + strconv.Itoa(nums[len(nums)-1])
	f, err := os.Open(name)
	if err != nil {
		return head{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return head{}, err
	}
	line, _, err := tail(f, st.Size())
	if err != nil {
		return head{}, err
	}
	if line == nil {
		return head{}, fmt.Errorf("%s holds no complete entry", name)
	}
	h, err := headOf(line)
	if err != nil {
		return head{}, fmt.Errorf("%s: %v", name, err)
	}
	return h, nil
}
