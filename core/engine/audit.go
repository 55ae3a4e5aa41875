package engine

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/hookexec/hookexec/core/audit"
)

// The audit log (core/audit): Options.AuditLog, else $HOOKEXEC_AUDIT_LOG in the host's
// environment as hooks get it (so the daemon's engines follow the calling agent's), adds
// an audit.Log to the sinks. Asked for and unusable, it fails Open: an audit that was
// asked for is not skipped quietly.

// Environment variables of the audit log, read when the options leave them unset.
const (
	AuditLogEnv      = "HOOKEXEC_AUDIT_LOG"
	AuditKeyFileEnv  = "HOOKEXEC_AUDIT_KEY_FILE"
	AuditMaxBytesEnv = "HOOKEXEC_AUDIT_MAX_BYTES"
)

// openAudit opens the audit log the options or the environment ask for; nil when none.
func (e *Engine) openAudit() (*audit.Log, error) {
	o, getenv := e.opts, e.getenv()
	path, key, maxBytes := o.AuditLog, o.AuditKeyFile, o.AuditMaxBytes
	if path == "" {
		path = getenv(AuditLogEnv)
	}
	if path == "" {
		return nil, nil
	}
	if key == "" {
		key = getenv(AuditKeyFileEnv)
	}
	if maxBytes == 0 {
		if s := getenv(AuditMaxBytesEnv); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %q is not a number of bytes", ErrInvalid, AuditMaxBytesEnv, s)
			}
			maxBytes = n
		}
	}
	// relative to the project: the daemon's working directory is not the agent's
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.ProjectDir, path)
	}
	ao := audit.Options{Path: path, MaxBytes: maxBytes}
	if key != "" {
		if !filepath.IsAbs(key) {
			key = filepath.Join(o.ProjectDir, key)
		}
		var err error
		if ao.Key, err = audit.ReadKey(key); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	l, err := audit.Open(ao)
	if err != nil {
		return nil, fmt.Errorf("%w: audit_log: %v", ErrConfig, err)
	}
	return l, nil
}
