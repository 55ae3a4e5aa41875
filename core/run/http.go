package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// HTTPSpec says where an http hook POSTs and how. Its zero value, apart from URL, is a
// sensible default.
type HTTPSpec struct {
	// URL receives the POST. Only http and https URLs are sent.
	URL string
	// Headers are sent in order after Content-Type; values are already expanded
	// (see ExpandHeader).
	Headers [][2]string
	// Body is the request body, the hook's stdin JSON.
	Body []byte
	// Timeout bounds the whole exchange, body read included. Zero or negative means none.
	Timeout time.Duration
	// OutputCap is the number of response body bytes kept; the rest is counted, not read
	// further. Zero means 32 KiB; negative keeps nothing.
	OutputCap int
}

// HTTPResult is what became of one POST. Like Result, it is a value and never partial.
type HTTPResult struct {
	// Status is the response status code; 0 when no response arrived.
	Status int
	// Body holds at most OutputCap bytes of the response body.
	Body []byte
	// BodyTruncated reports that the server sent more than OutputCap bytes.
	BodyTruncated bool
	// TimedOut reports that Timeout expired before the response was read.
	TimedOut bool
	// Duration is the wall time Post took.
	Duration time.Duration
	// Err is nil, or why no complete response was read (bad URL, connection refused, ctx
	// ended: it wraps ctx's error). A timeout is not an error: see TimedOut.
	Err error
}

// OK reports a complete 2xx response.
func (r HTTPResult) OK() bool {
	return r.Err == nil && !r.TimedOut && r.Status >= 200 && r.Status < 300
}

// httpClient is shared so that hooks to one endpoint reuse connections. Redirects are not
// followed: a hook's answer is the response of the URL the user configured.
var httpClient = &http.Client{
	Transport: http.DefaultTransport.(*http.Transport).Clone(),
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// Post sends spec.Body to spec.URL as application/json and reads the response under the
// timeout. It never panics on a bad spec and always returns a result.
func Post(ctx context.Context, spec HTTPSpec) HTTPResult {
	start := time.Now()
	r := post(ctx, &spec)
	r.Duration = time.Since(start)
	return r
}

func post(parent context.Context, spec *HTTPSpec) HTTPResult {
	var r HTTPResult
	if parent == nil {
		parent = context.Background()
	}
	if !strings.HasPrefix(spec.URL, "http://") && !strings.HasPrefix(spec.URL, "https://") {
		r.Err = fmt.Errorf("hookexec: http: url %q is not http:// or https://", spec.URL)
		return r
	}
	ctx, cancel := parent, context.CancelFunc(func() {})
	if spec.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(parent, spec.Timeout, errTimeout)
	}
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, spec.URL, bytes.NewReader(spec.Body))
	if err != nil {
		r.Err = fmt.Errorf("hookexec: http: %w", err)
		return r
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range spec.Headers {
		req.Header.Add(h[0], h[1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		ended(&r, ctx, parent, err)
		return r
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	limit := spec.OutputCap
	if limit == 0 {
		limit = defaultCap
	}
	limit = max(limit, 0)
	// One byte past the cap tells a truncated body from one that fits exactly; the rest is
	// not read, so a huge or endless body costs no more than the cap.
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if len(body) > limit {
		body, r.BodyTruncated = body[:limit], true
	}
	r.Body = body
	if err != nil && !r.BodyTruncated {
		ended(&r, ctx, parent, err)
	}
	return r
}

var errTimeout = errors.New("hookexec: http: timeout")

// ended records why an exchange stopped early: the hook's own deadline is a timeout,
// anything else an error.
func ended(r *HTTPResult, ctx, parent context.Context, err error) {
	if context.Cause(ctx) == errTimeout && parent.Err() == nil {
		r.TimedOut = true
		return
	}
	if perr := parent.Err(); perr != nil {
		err = perr
	}
	r.Err = fmt.Errorf("hookexec: http: %w", err)
}

// ExpandHeader replaces $NAME and ${NAME} in a header value with the variable's value from
// env (KEY=VALUE pairs, the last one wins) when NAME is in allowed, and with "" otherwise, so
// a header can never leak a variable the user did not list (Claude Code's allowedEnvVars).
// A "$" not followed by a name is kept as is.
func ExpandHeader(value string, allowed []string, env []string) string {
	if !strings.Contains(value, "$") {
		return value
	}
	lookup := func(name string) string {
		ok := false
		for _, a := range allowed {
			ok = ok || a == name
		}
		if !ok {
			return ""
		}
		for i := len(env) - 1; i >= 0; i-- {
			if v, found := strings.CutPrefix(env[i], name+"="); found {
				return v
			}
		}
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c != '$' || i+1 == len(value) {
			b.WriteByte(c)
			continue
		}
		if value[i+1] == '{' {
			if end := strings.IndexByte(value[i+2:], '}'); end > 0 && isName(value[i+2:i+2+end]) {
				b.WriteString(lookup(value[i+2 : i+2+end]))
				i += 2 + end
				continue
			}
			b.WriteByte(c)
			continue
		}
		n := 0
		for i+1+n < len(value) && nameByte(value[i+1+n], n == 0) {
			n++
		}
		if n == 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString(lookup(value[i+1 : i+1+n]))
		i += n
	}
	return b.String()
}

func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i], i == 0) {
			return false
		}
	}
	return s != ""
}

func nameByte(c byte, first bool) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || !first && c >= '0' && c <= '9'
}
