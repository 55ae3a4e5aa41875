// Package audit keeps the audit log: every decided fire of an engine (core/observe) appended
// as one JSON line to a file whose entries are hash-chained, so that an entry edited,
// removed, inserted or moved afterwards is found by Verify. It also reads the log back
// (Read, ReadFiles) for `hookexec audit show` and `hookexec stats`.
//
// It does not keep payloads, rewritten inputs, commands or the environment: only their
// SHA-256 digests and the decision's words. It does not prevent anyone who can write the
// file from rewriting the whole chain: without a key (Options.Key) or a head recorded
// elsewhere (VerifyOptions.Head) the chain proves only that the file is internally
// consistent. docs/observability.md "Audit log" says what it proves and what it does not.
package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"time"
)

// Kinds of entries.
const (
	KindFire = "fire" // one decided fire
	KindGap  = "gap"  // Dropped decisions were not written (queue full, or the disk failed)
	KindTorn = "torn" // a writer found the file ending in a partial line and cut TornBytes
)

// Algorithms of an entry's hash.
const (
	AlgSHA256     = "sha256"      // SHA-256 of the entry's body
	AlgHMACSHA256 = "hmac-sha256" // HMAC-SHA-256 of the body under the log's key
)

// Version is the format version every entry carries in "v".
const Version = 1

// Genesis is the "prev" of the first entry of a chain (seq 1).
var Genesis = string(bytes.Repeat([]byte("0"), 64))

// Entry is one line of the audit log. The JSON names are the format (docs/observability.md);
// fields are added, never renamed. Empty fields are left out of the line.
type Entry struct {
	V    int    `json:"v"`
	Seq  uint64 `json:"seq"`  // 1 for the first entry of the chain, then +1 across rotated files
	Kind string `json:"kind"` // KindFire, KindGap, KindTorn
	// Time is when the fire started (KindFire), or when the entry was written.
	Time time.Time `json:"time"`
	PID  int       `json:"pid"` // the process that wrote the entry
	// Profile is the engine's profile: the agent it runs for ("claude", "codex", ...).
	Profile string `json:"profile,omitempty"`
	Session string `json:"session,omitempty"`
	Event   string `json:"event,omitempty"`    // the canonical event name
	FiredAs string `json:"fired_as,omitempty"` // the host's spelling when it differs
	// Tool is the tool name for tool events (Subject when SubjectField is "tool_name").
	Tool         string `json:"tool,omitempty"`
	Subject      string `json:"subject,omitempty"`
	SubjectField string `json:"subject_field,omitempty"`
	Matched      int    `json:"matched,omitempty"`
	Decision     string `json:"decision,omitempty"` // "none", "allow", "ask", "deny"
	Blocked      bool   `json:"blocked,omitempty"`
	// Reason is the fire's reason, or for a gap why the decisions were lost.
	Reason     string  `json:"reason,omitempty"`
	DurationMs float64 `json:"duration_ms,omitempty"`
	// InputSHA256 is the hex SHA-256 of the payload bytes as the host gave them;
	// UpdatedInputSHA256 that of the rewritten tool input, when a hook rewrote it.
	InputSHA256        string `json:"input_sha256,omitempty"`
	UpdatedInputSHA256 string `json:"updated_input_sha256,omitempty"`
	Hooks              []Hook `json:"hooks,omitempty"` // the selected hooks, in config order
	Dropped            uint64 `json:"dropped,omitempty"`
	TornBytes          int64  `json:"torn_bytes,omitempty"`
	Alg                string `json:"alg"`
	Prev               string `json:"prev"` // the hash of the entry before; Genesis for seq 1
	// Hash is the hex hash (Alg) of the line's body: its bytes up to `,"hash":` with "}"
	// appended. It is the last member of every line.
	Hash string `json:"hash"`
}

// Hook is what one selected hook of a fire did.
type Hook struct {
	ID         string  `json:"id"`
	Source     string  `json:"source,omitempty"` // the file defining it ("<inline>" for inline config)
	Line       int     `json:"line,omitempty"`
	Type       string  `json:"type,omitempty"`
	Ran        bool    `json:"ran"`
	Async      bool    `json:"async,omitempty"`
	Decision   string  `json:"decision,omitempty"`
	ExitCode   int     `json:"exit_code"` // -1 when it did not exit
	TimedOut   bool    `json:"timed_out,omitempty"`
	DurationMs float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
}

// body is an Entry without its hash: the bytes the hash covers.
type body Entry

// MarshalJSON leaves Hash out.
func (b *body) MarshalJSON() ([]byte, error) {
	type plain struct {
		*Entry
		Hash string `json:"hash,omitempty"` // shadows Entry.Hash; always ""
	}
	return json.Marshal(plain{Entry: (*Entry)(b)})
}

// hashPrefix and the closing `"}` frame the hash at the end of every line.
const hashPrefix = `,"hash":"`

// seal encodes e, whose Prev is set, as one line ending in "\n" and sets e.Hash. key nil
// means plain SHA-256.
func seal(e *Entry, key []byte) ([]byte, error) {
	e.Hash = ""
	b, err := json.Marshal((*body)(e))
	if err != nil {
		return nil, err
	}
	e.Hash = digest(b, key)
	line := make([]byte, 0, len(b)+len(hashPrefix)+64+3)
	line = append(line, b[:len(b)-1]...)
	line = append(line, hashPrefix...)
	line = append(line, e.Hash...)
	return append(line, '"', '}', '\n'), nil
}

// digest is the hex hash of a body.
func digest(b, key []byte) string {
	var h hash.Hash
	if key != nil {
		h = hmac.New(sha256.New, key)
	} else {
		h = sha256.New()
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// split cuts a line (without its newline) into its body and the hash it claims.
func split(line []byte) (bodyBytes []byte, claimed string, err error) {
	const tail = 64 + 2 // hex, `"}`
	n := len(line) - len(hashPrefix) - tail
	if n < 1 || !bytes.Equal(line[n:n+len(hashPrefix)], []byte(hashPrefix)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return nil, "", errors.New(`the line does not end in ,"hash":"<64 hex digits>"}`)
	}
	claimed = string(line[n+len(hashPrefix) : len(line)-2])
	if !isHex64(claimed) {
		return nil, "", errors.New("the hash is not 64 lowercase hex digits")
	}
	bodyBytes = make([]byte, 0, n+1)
	return append(append(bodyBytes, line[:n]...), '}'), claimed, nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// sha hex-encodes the SHA-256 of b; "" for nil.
func sha(b []byte) string {
	if b == nil {
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
