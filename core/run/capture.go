package run

import "sync"

// capture keeps the first limit bytes a child writes to one stream and counts the
// rest. It never refuses bytes, so the child never blocks on a full pipe. Only
// the goroutine in Run touches it, so it needs no lock.
type capture struct {
	buf   []byte
	limit int
	total int64
}

// scratchSize is half a default pipe: two reads drain a full one.
const scratchSize = 32 << 10

// scratch read buffers are pooled so that a run does not allocate 32 KiB only to
// copy a few bytes out of it.
var scratch = sync.Pool{New: func() any { b := make([]byte, scratchSize); return &b }}

// keep keeps what fits under the limit and counts everything.
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
