package run

import (
	"io"
	"sync"
)

// capture keeps the first limit bytes a child writes to one stream and counts the
// rest. It never refuses a write, so the child never blocks on a full pipe.
// os/exec drives it from one goroutine and Run reads it only after Wait, so it
// needs no lock.
type capture struct {
	buf   []byte
	limit int
	total int64
}

// scratchSize matches io.Copy's buffer: one read drains half a default pipe.
const scratchSize = 32 << 10

// scratch buffers are pooled so that a run does not allocate 32 KiB per stream
// only to copy a few bytes out of it.
var scratch = sync.Pool{New: func() any { b := make([]byte, scratchSize); return &b }}

// Write keeps what fits under the limit and counts everything.
func (c *capture) Write(p []byte) (int, error) {
	c.keep(p)
	return len(p), nil
}

// ReadFrom drains r into c. os/exec copies the pipe with io.Copy, which calls this
// (after *os.File.WriteTo finds no splice target) instead of allocating its own
// 32 KiB buffer for every stream of every run.
func (c *capture) ReadFrom(r io.Reader) (int64, error) {
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	b := *bp
	var n int64
	for {
		m, err := r.Read(b)
		if m > 0 {
			c.keep(b[:m])
			n += int64(m)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func (c *capture) keep(p []byte) {
	c.total += int64(len(p))
	if room := c.limit - len(c.buf); room > 0 {
		if len(p) > room {
			p = p[:room]
		}
		c.buf = append(c.buf, p...)
	}
}

func (c *capture) truncated() bool { return c.total > int64(len(c.buf)) }
