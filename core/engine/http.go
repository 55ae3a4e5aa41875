package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/run"
)

// httpSpec is the POST of an http hook: its stdin JSON to its URL, headers expanded from
// the hook's environment through allowedEnvVars only (narrowed by httpHookAllowedEnvVars).
func httpSpec(h *hook, stdin []byte, env []string, cap int, policy []string) run.HTTPSpec {
	allowed := h.cfg.AllowedEnvVars
	if policy != nil {
		// httpHookAllowedEnvVars narrows every hook's own list.
		allowed = nil
		for _, name := range h.cfg.AllowedEnvVars {
			if slices.Contains(policy, name) {
				allowed = append(allowed, name)
			}
		}
	}
	headers := make([][2]string, len(h.cfg.Headers))
	for i, kv := range h.cfg.Headers {
		headers[i] = [2]string{kv[0], run.ExpandHeader(kv[1], allowed, env)}
	}
	return run.HTTPSpec{URL: h.cfg.URL, Headers: headers, Body: stdin, Timeout: h.cfg.Timeout, OutputCap: cap}
}

// post runs an http hook and reads its response the way Claude Code 2.1.330 does: 2xx
// with an empty body is success, with JSON it is read like a command's JSON stdout, with
// other text it is a non-blocking error; a non-2xx status, a connection failure or a timeout is a
// non-blocking error (blocking only with fail_closed).
func (j *job) post(ctx context.Context) (HookResult, decide.Verdict) {
	r := run.Post(ctx, j.http)
	hr := j.h.base()
	hr.ExitCode = -1
	hr.HTTPStatus = r.Status
	hr.TimedOut = r.TimedOut
	hr.DurationMs = ms(r.Duration)
	body, unread := stdoutOf(&hr, r.Body, r.BodyTruncated, j.spec.OutputCap)
	failure := ""
	switch {
	case r.TimedOut:
		failure = fmt.Sprintf("timed out after %s", j.http.Timeout)
	case r.Err != nil && ctx.Err() != nil:
		failure, hr.TimedOut = ended(ctx)
	case r.Err != nil:
		failure = "request failed: " + strings.TrimPrefix(r.Err.Error(), "hookexec: http: ")
	case !r.OK():
		failure = fmt.Sprintf("HTTP status %d", r.Status)
		if line := firstLine(strings.TrimSpace(string(r.Body))); line != "" {
			failure += ": " + line
		}
	case unread != "":
		failure = unread
	case len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] != '{':
		// Claude Code 2.1.330: a 2xx body that is not JSON is a non-blocking error; its
		// text reaches nobody.
		failure = "the response body is not JSON: " + firstLine(strings.TrimSpace(string(body)))
	default:
		hr.ExitCode = 0
	}
	v := decide.Read(decide.Input{
		Event:      j.ev,
		Stdout:     body,
		Failure:    failure,
		FailClosed: j.h.cfg.FailClosed,

		NestedContext: j.h.cfg.Dialect == dialect.Claude,
		ClaudeSchema:  j.h.cfg.Dialect == dialect.Claude,
	})
	j.finish(&hr, &v)
	return hr, v
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
